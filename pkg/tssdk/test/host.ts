// The real host binary (services/codemode-host) as a child process, and the transports the
// integration tests reach it with. tools/test-ts.sh builds it into .cache/codemode-host before
// the tests run.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport as createNodeConnectTransport, createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { createConnectTransport as createWebConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";

/** The nearest directory above this module that holds go.mod. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "go.mod"))) {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error("repoRoot: no go.mod above " + fileURLToPath(import.meta.url));
    }
    dir = parent;
  }
}

/** The host binary: $CODEMODE_HOST, else .cache/codemode-host (built by tools/test-ts.sh). */
function binary(): string {
  const path = process.env["CODEMODE_HOST"] ?? join(repoRoot(), ".cache", "codemode-host");
  if (!existsSync(path)) {
    throw new Error(`host ${path} is missing: run tools/test-ts.sh (or go build -o ${path} ./services/codemode-host)`);
  }
  return path;
}

/** The routing tests' host (compat/tshost): $CODEMODE_TSHOST, else .cache/tshost (built by tools/test-ts.sh). */
function routingBinary(): string {
  const path = process.env["CODEMODE_TSHOST"] ?? join(repoRoot(), ".cache", "tshost");
  if (!existsSync(path)) {
    throw new Error(`routing test host ${path} is missing: run tools/test-ts.sh (or go build -o ${path} ./compat/tshost)`);
  }
  return path;
}

/** A running host process: codemode-host with one gRPC/Connect listener, or compat/tshost's routing front. */
export class TestHost {
  /** The host's base URL, "http://127.0.0.1:PORT". */
  readonly url: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  readonly #lines: AsyncIterator<string>;

  private constructor(url: string, child: ChildProcess, exited: Promise<number | null>, lines: AsyncIterator<string>) {
    this.url = url;
    this.#child = child;
    this.#exited = exited;
    this.#lines = lines;
  }

  /**
   * Starts a host on `listen` (a free port by default) and resolves with its printed address:
   * the real host binary, or with `hosts` ≥ 2 the routing tests' compat/tshost, whose listener
   * serves that many hosts (routes host0…) behind a sticky front that {@link TestHost.command}
   * controls.
   */
  static async start(listen = "127.0.0.1:0", hosts = 1): Promise<TestHost> {
    const child =
      hosts === 1
        ? spawn(binary(), ["--listen", `grpc://${listen}`, "--log-level", "warn"], { stdio: ["ignore", "pipe", "inherit"] })
        : spawn(routingBinary(), ["-listen", listen, "-hosts", String(hosts)], { stdio: ["pipe", "pipe", "inherit"] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const url = await new Promise<string>((resolve, reject) => {
      lines.next().then((r) => (r.done === true ? reject(new Error("test host printed nothing")) : resolve(r.value)), reject);
      child.once("error", reject);
      void exited.then((code) => reject(new Error(`codemode-host exited with ${code} before printing its address`)));
    });
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(url)) {
      throw new Error(`codemode-host printed ${JSON.stringify(url)}, not http://ADDR`);
    }
    return new TestHost(url, child, exited, lines);
  }

  /** Sends a command to the sticky front ("out 0", "refuse 14 8", "opens") and resolves with its answer. */
  async command(line: string): Promise<string> {
    if (this.#child.stdin === null) {
      throw new Error("only the routing test host (start with hosts ≥ 2) takes commands");
    }
    this.#child.stdin.write(line + "\n");
    const r = await this.#lines.next();
    if (r.done === true) {
      throw new Error(`test host ended before answering ${JSON.stringify(line)}`);
    }
    return r.value;
  }

  /** "127.0.0.1:PORT", for a restart on the same address. */
  get address(): string {
    return this.url.slice("http://".length);
  }

  /** Ends the host with SIGTERM (it drains: sessions closed, cells terminated) and resolves with its exit code. */
  async stop(): Promise<number | null> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill("SIGTERM");
    }
    return this.#exited;
  }
}

/** A transport of the matrix and how to release its connections. */
export interface TransportCase {
  readonly name: string;
  make(url: string): { transport: Transport; close(): void };
}

/** Node's transports (connect-node) and the browsers' (connect-web, on Node's fetch). */
export const transports: readonly TransportCase[] = [
  {
    name: "Connect over HTTP/1.1 (connect-node)",
    make: (baseUrl) => ({ transport: createNodeConnectTransport({ baseUrl, httpVersion: "1.1" }), close: () => {} }),
  },
  {
    name: "gRPC over HTTP/2 (connect-node)",
    make: (baseUrl) => {
      const sessionManager = new Http2SessionManager(baseUrl);
      return { transport: createGrpcTransport({ baseUrl, sessionManager }), close: () => sessionManager.abort() };
    },
  },
  {
    name: "Connect over fetch (connect-web)",
    make: (baseUrl) => ({ transport: createWebConnectTransport({ baseUrl, useBinaryFormat: true }), close: () => {} }),
  },
  {
    name: "gRPC-Web over fetch (connect-web)",
    make: (baseUrl) => ({ transport: createGrpcWebTransport({ baseUrl }), close: () => {} }),
  },
];

/** A promise with its resolve function, for a test to wait for an event. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
