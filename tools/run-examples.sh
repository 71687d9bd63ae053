#!/usr/bin/env bash
# The main job: builds the tuner, then configures (which tunes) and builds every example.
#   - With a GPU (the CUDA runtime sees one): the CUDA examples are tuned for real on it.
#   - Without one: the CUDA examples build against their pinned headers (tuned on an H200, in
#     examples/<name>/pinned/) and say so; the host example is tuned for real on the CPU.
# Ends with a table: each example, where its header came from, and its demo's result.
#
#   tools/run-examples.sh [example...]     (default: host_matmul vector_add gemm)
# Environment: ADAEXPLORE_BUILD_DIR (default <repository>/build), ADAEXPLORE_JOBS (default: all cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ADAEXPLORE_BUILD_DIR:-$root/build}
jobs=${ADAEXPLORE_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
examples=("$@")
[ ${#examples[@]} -eq 0 ] && examples=(host_matmul vector_add gemm)

"$root/tools/install-deps.sh"
generator=()
[ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DADAEXPLORE_BUILD_TESTS=OFF
cmake --build "$build" --parallel "$jobs" --target adaexplore-tuner
tuner="$build/tuner/adaexplore-tuner"

gpu=0
if "$tuner" device >"$build/device.json" 2>&1; then
  gpu=1
  echo "run-examples: GPU found: $(grep '"name"' "$build/device.json" | head -1 | sed 's/^[^:]*: "//; s/",\{0,1\}$//')"
else
  echo "run-examples: NO GPU ($(grep '"reason"' "$build/device.json" | sed 's/^[^:]*: "//; s/",\{0,1\}$//')):"
  echo "run-examples: CUDA examples use their pinned headers (not tuned here); the host example is tuned on the CPU."
fi

summary=()
mkdir -p "$build/examples"
for ex in "${examples[@]}"; do
  src="$root/examples/$ex"
  out="$build/examples/$ex"
  echo "== $ex"
  cmake -S "$src" -B "$out" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DADAEXPLORE_TUNER_EXECUTABLE="$tuner" \
    2>&1 | tee "$out.configure.log"
  cmake --build "$out" --parallel "$jobs"
  # "TUNED", "NOT TUNED here, using the pinned header ... (tuned on NVIDIA H200, ...)", ...: the
  # verdict, and for a pinned or default header where it came from.
  line=$(grep -o "AdaExplore: $ex: [A-Z][A-Z ]*[A-Z].*" "$out.configure.log" | tail -1 | sed "s/AdaExplore: $ex: //")
  origin=${line%%,*}
  case $line in
    *"pinned header"*"(tuned on "*) origin="$origin, pinned ($(echo "$line" | sed 's/.*(tuned on \([^,)]*\).*/\1/'))" ;;
    *"pinned header"*) origin="$origin, pinned" ;;
    *default*) origin="$origin, defaults" ;;
  esac
  demo=$(find "$out" -maxdepth 1 -type f -perm -u+x -name '*_demo' | head -1)
  result="not run"
  if [ -n "$demo" ]; then
    if [ "$ex" = host_matmul ] || [ $gpu = 1 ]; then
      if "$demo" >"$out.demo.log" 2>&1; then result="demo ok"; else result="DEMO FAILED (see $out.demo.log)"; fi
      tail -n 3 "$out.demo.log"
    else
      result="built (demo needs a GPU)"
    fi
  fi
  summary+=("$(printf '%-12s %-45s %s' "$ex" "${origin:-?}" "$result")")
done
echo
echo "example      header                                        result"
printf '%s\n' "${summary[@]}"
