#!/usr/bin/env bash
# Repository hygiene, run by make lint: no tracked file is a compiled executable (ELF, Mach-O,
# PE) or larger than 2 MB. Build outputs belong in bin/ (ignored), not in git.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
limit=$((2 * 1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  if [ "$size" -gt "$limit" ]; then
    echo "hygiene: $f is $size bytes, over 2 MB" >&2
    bad=1
  fi
  magic=$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')
  case "$magic" in
    7f454c46 | cffaedfe | cefaedfe | feedfacf | feedface | cafebabe | 4d5a*)
      echo "hygiene: $f is a compiled executable ($magic)" >&2
      bad=1
      ;;
  esac
done < <(git ls-files -z)
if [ "$bad" -ne 0 ]; then
  exit 1
fi
echo "hygiene: no executable or file over 2 MB is tracked"
