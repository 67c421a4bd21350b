#!/bin/sh
# README.md against the code: its command list is `lrulab help`'s, and
# its source tree names every file of the tree's code directories and
# nothing that is not there.
set -u
LRULAB=${1:?usage: readme.sh path/to/lrulab}
README=${README:-README.md}
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# the "## Commands" section's code block: the first word after `lrulab`
cmds_block=$(sed -n '/^## Commands$/,/^## /p' "$README" | sed -n '/^```$/,/^```$/p')
[ -n "$cmds_block" ] || fail "README: no code block under ## Commands"
listed=$(echo "$cmds_block" | sed -n 's/^lrulab \([a-z][a-z-]*\).*/\1/p' | sort -u)
helped=$("$LRULAB" help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | sort -u)
[ -n "$helped" ] || fail "lrulab help lists no command"
for c in $helped; do
	echo "$listed" | grep -qx "$c" || fail "README: ## Commands has no 'lrulab $c'"
done
for c in $listed; do
	echo "$helped" | grep -qx "$c" || fail "README: 'lrulab $c' is no command of lrulab help"
done

# the "### Source tree" table: a row's first cell names paths (a
# directory ends in /, globs allowed); its other cells name files in
# backquotes, relative to the first cell's directory
tree=$(sed -n '/^### Source tree$/,/^##/p' "$README" | grep '^| `')
[ -n "$tree" ] || fail "README: no ### Source tree table"
named=$(mktemp)
trap 'rm -f "$named"' EXIT
echo "$tree" | while IFS= read -r row; do
	first=$(echo "$row" | cut -d'|' -f2)
	rest=$(echo "$row" | cut -d'|' -f3-)
	dir=""
	for p in $(echo "$first" | grep -o '`[^`]*`' | tr -d '`'); do
		case $p in
		*/) dir=$p; [ -d "$p" ] || echo "MISSING $p" ;;
		*\**) ls $p >/dev/null 2>&1 || echo "MISSING $p"; ls $p 2>/dev/null ;;
		*) [ -e "$p" ] || echo "MISSING $p"; echo "$p" ;;
		esac
	done
	[ -n "$dir" ] || continue
	for f in $(echo "$rest" | grep -o '`[a-z_A-Z0-9.-]*\.\(c\|h\|sh\|md\)`' | tr -d '`'); do
		[ -e "$dir$f" ] && echo "$dir$f"
	done
done >"$named"
grep '^MISSING ' "$named" | while read -r _ p; do
	echo "FAIL: README's source tree names $p, which is not in the tree"
done
fails=$((fails + $(grep -c '^MISSING ' "$named")))
for f in include/lrulab/*.h lib/* mm/* bench/* predict/* replay/* tools/*; do
	grep -qx "$f" "$named" || fail "README's source tree does not name $f"
done

if [ "$fails" -gt 0 ]; then
	echo "readme: $fails failed"
	exit 1
fi
echo "readme: all passed"
