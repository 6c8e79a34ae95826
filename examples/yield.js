// @exec: {"yield_time_ms": 100}
// A long cell yields after 100 ms and keeps running; `--wait` keeps observing it to the end:
//   codemode run --wait --yield 200 examples/yield.js
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (let step = 1; step <= 5; step++) {
  text(`step ${step}`);
  await sleep(60);
}
text("done");
