#!/usr/bin/env bash
# Breaking-change gates against the committed baselines in compat/.
#
#   tools/compat.sh                    check: the schemas may only change compatibly
#   tools/compat.sh --update-baseline  accept the current schemas as the new baseline
#
# gRPC: `buf breaking` (rules: FILE, see buf.yaml) compares schemas/proto with the image
# compat/buf/image.binpb and names every break, e.g.
#   ...code_mode.proto:157:1:Previously present field "3" with name "final_tool_call_sequence"
#   on message "CellClosed" was deleted.
# codex.code_mode.v1 is Codex's wire: a break is a bug, unless Codex itself changed the proto.
# Only then update the baseline deliberately: edit the .proto to match Codex, run
# `tools/compat.sh --update-baseline`, and commit the new image together with the schema change
# (the diff of compat/buf/image.binpb is the reviewer's signal that the wire changed).
#
# JSON Schema: tools/compat-jsonschema.sh, if present, runs next with the same arguments, so
# --update-baseline accepts both the gRPC and the JSON Schema baselines (review both diffs).
set -euo pipefail
cd "$(dirname "$0")/.."

image=compat/buf/image.binpb

case "${1:-}" in
  "") ;;
  --update-baseline)
    go tool -modfile=go.tools.mod buf build --exclude-source-info -o "$image"
    echo "compat: wrote $image from schemas/proto"
    ;;
  *)
    echo "usage: tools/compat.sh [--update-baseline]" >&2
    exit 2
    ;;
esac

if ! go tool -modfile=go.tools.mod buf breaking --against "$image"; then
  echo "compat: schemas/proto breaks compatibility with $image (see above)." >&2
  echo "compat: if Codex changed its proto, update the baseline: tools/compat.sh --update-baseline" >&2
  exit 1
fi

if [ -e tools/compat-jsonschema.sh ]; then
  bash tools/compat-jsonschema.sh "$@"
fi
