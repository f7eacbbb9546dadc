#!/usr/bin/env bash
# check-format - the C lines a change adds or modifies must be formatted as
# the committed .clang-format says.  Only those lines: the code already
# there stays as it is (clang-format-diff on the diff, no mass reformat).
#
#   bash scripts/check-format.sh [BASE]      show the fixes; exit 1 if any
#   bash scripts/check-format.sh -i [BASE]   make them in the working tree
#
# The change is what the working tree has since BASE.  Without BASE:
#   - on a branch: since its merge base with origin/main (or main);
#   - on main itself, as CI's clean clone after a branch landed: since the
#     first parent of HEAD, i.e. main before the last merge (or before the
#     last commit when it landed alone);
#   - a shallow clone is deepened by one commit when it can be; with no
#     parent at all there is nothing to compare: one line says so, exit 0.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

fix=
if [ "${1:-}" = -i ]; then
	fix=-i
	shift
fi
base=${1:-}

cfd=$(command -v clang-format-diff ||
      ls /usr/bin/clang-format-diff-[0-9]* 2>/dev/null | sort -V | tail -1 ||
      true)
if [ -z "$cfd" ] || ! command -v clang-format >/dev/null; then
	echo "check-format: needs clang-format and clang-format-diff" \
	     "(the Debian package clang-format: bash scripts/setup.sh)" >&2
	exit 2
fi

has() { git rev-parse -q --verify "$1^{commit}" >/dev/null; }

if [ -z "$base" ]; then
	head=$(git rev-parse HEAD)
	for ref in origin/main main; do
		has "$ref" || continue
		mb=$(git merge-base HEAD "$ref" 2>/dev/null) || continue
		if [ "$mb" != "$head" ]; then
			base=$mb
			break
		fi
	done
fi
if [ -z "$base" ]; then
	if ! has HEAD^1 && [ "$(git rev-parse --is-shallow-repository)" = true ]; then
		git fetch -q --deepen=1 2>/dev/null || true
	fi
	if ! has HEAD^1; then
		echo "check-format: HEAD has no parent in this clone:" \
		     "no change to check"
		exit 0
	fi
	base=HEAD^1
fi
has "$base" || { echo "check-format: no commit '$base'" >&2; exit 2; }

out=$(git diff -U0 --no-color --no-ext-diff "$base" -- '*.c' '*.h' |
      "$cfd" -p1 $fix)
if [ -n "$fix" ]; then
	echo "check-format: reformatted the lines changed since $(git rev-parse --short "$base")"
	exit 0
fi
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	echo "check-format: lines changed since $(git rev-parse --short "$base")" \
	     "are not formatted as .clang-format says (above: the fix;" \
	     "bash scripts/check-format.sh -i makes it)" >&2
	exit 1
fi
echo "check-format: the lines changed since $(git rev-parse --short "$base") are formatted"
