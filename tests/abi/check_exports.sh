#!/bin/sh
# check_exports.sh PLUGIN.so... — each plugin's dynamic symbol table must
# define exactly airlock_plugin_abi_version and airlock_plugin_init, nothing
# more (no leaked Boost, libstdc++ or helper symbols) and nothing less.
set -u
status=0
for plugin in "$@"; do
  if ! symbols=$(nm -D --defined-only --format=posix "$plugin" | cut -d' ' -f1 | sort); then
    echo "$plugin: nm failed" >&2
    status=1
    continue
  fi
  expected=$(printf 'airlock_plugin_abi_version\nairlock_plugin_init')
  if [ "$symbols" != "$expected" ]; then
    echo "$plugin: exports other symbols than the two entry points:" >&2
    printf '%s\n' "$symbols" | grep -vx -e airlock_plugin_abi_version -e airlock_plugin_init | sed 's/^/  extra: /' >&2
    for name in airlock_plugin_abi_version airlock_plugin_init; do
      printf '%s\n' "$symbols" | grep -qx "$name" || echo "  missing: $name" >&2
    done
    status=1
  else
    echo "$plugin: ok"
  fi
done
exit $status
