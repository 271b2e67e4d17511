#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ for a bounded time each and says how
# many inputs each executed and whether any crashed (docs/fuzzing.md).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60); targets default to all: swarm, do_bet,
# envelope. Installs cargo-fuzz from crates.io when missing. Runs on the
# stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz passes -Z flags);
# FUZZ_SANITIZER=none builds without AddressSanitizer (default: address,
# and none when an address build fails). New corpus entries stay in
# fuzz/corpus/<target> (not in git); crashes land in fuzz/artifacts/<target>.
# Exits 1 when a target crashed (or failed to build or run).
#
# Not part of scripts/test.sh: the first build of the envelope target
# (api, sqlx, axum with coverage instrumentation) alone takes 10-20 minutes
# on two cores, and three targets run 3 minutes at the default budget.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_rust

SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(swarm do_bet envelope)
case "$SECONDS_EACH" in
  '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz (crates.io; compiles for a few minutes)"
  cargo install cargo-fuzz --locked || { echo "cargo-fuzz could not be installed" >&2; exit 1; }
fi
export RUSTC_BOOTSTRAP=1
SANITIZER="${FUZZ_SANITIZER:-address}"

features() { # the cargo features a target needs
  case "$1" in
    envelope) echo "--features api" ;;
  esac
}

libfuzzer_args() { # per-target libFuzzer options
  case "$1" in
    swarm) echo "-dict=dicts/swarm.dict" ;;
    do_bet) echo "-dict=dicts/do_bet.dict -max_len=1024" ;;
  esac
}

build() { # build TARGET SANITIZER
  # shellcheck disable=SC2046
  cargo fuzz build -s "$2" $(features "$1") "$1" >"$LOGS/$1.build" 2>&1
}

cd "$ROOT/fuzz"
LOGS="$(mktemp -d)"
status=0
summary=()
for target in "${TARGETS[@]}"; do
  if [ ! -f "fuzz_targets/$target.rs" ]; then
    echo "unknown target '$target' (fuzz/fuzz_targets/)" >&2
    status=1; summary+=("$target: unknown target"); continue
  fi
  log "building $target (sanitizer: $SANITIZER)"
  if ! build "$target" "$SANITIZER" && [ "$SANITIZER" = address ]; then
    tail -n 5 "$LOGS/$target.build" >&2
    log "the AddressSanitizer build failed; building without a sanitizer"
    SANITIZER=none
    build "$target" none
  fi
  if ! grep -q "Finished" "$LOGS/$target.build"; then
    tail -n 30 "$LOGS/$target.build" >&2
    status=1; summary+=("$target: build failed"); continue
  fi
  mkdir -p "corpus/$target" "artifacts/$target"
  seeds=()
  [ -d "seeds/$target" ] && seeds=("seeds/$target")
  log "fuzzing $target for ${SECONDS_EACH}s"
  before=$(ls "artifacts/$target" | wc -l)
  # A hang counts as a crash (-timeout, seconds for one input); the outer
  # timeout is a last resort.
  # shellcheck disable=SC2046
  timeout $((SECONDS_EACH + 600)) cargo fuzz run -s "$SANITIZER" $(features "$target") "$target" \
    "corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$SECONDS_EACH" -timeout=10 -print_final_stats=1 $(libfuzzer_args "$target") \
    >"$LOGS/$target.run" 2>&1
  rc=$?
  runs=$(grep -aoE 'stat::number_of_executed_units: *[0-9]+' "$LOGS/$target.run" | grep -oE '[0-9]+$' | tail -n 1)
  speed=$(grep -aoE 'stat::average_exec_per_sec: *[0-9]+' "$LOGS/$target.run" | grep -oE '[0-9]+$' | tail -n 1)
  after=$(ls "artifacts/$target" | wc -l)
  if [ "$rc" -eq 0 ] && [ "$after" -eq "$before" ]; then
    summary+=("$target: ${runs:-?} executions in ${SECONDS_EACH}s (${speed:-?}/s), no crash")
  else
    status=1
    echo "--- $target (exit $rc)" >&2
    grep -aE -m1 -A4 'panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer' "$LOGS/$target.run" >&2
    grep -aE 'Test unit written to|artifact_prefix' "$LOGS/$target.run" | tail -n 2 >&2
    new=$(ls -t "artifacts/$target" | head -n 1)
    feats=$(features "$target")
    summary+=("$target: CRASH after ${runs:-?} executions: fuzz/artifacts/$target/$new (replay: cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run $target${feats:+ $feats} artifacts/$target/$new)")
  fi
done

echo "fuzzing, ${SECONDS_EACH}s per target (logs: $LOGS):"
for line in "${summary[@]}"; do echo "  $line"; done
exit $status
