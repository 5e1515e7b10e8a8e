#!/bin/sh
# make-secrets.sh — makes what both nodes share and no repository may hold:
#   secrets/state.key    32 random bytes sealing requestState ([server] request_state_key_file)
#   secrets/alice.token  the bearer token of identity "alice" ([[transport.http.tokens]])
# in the directory of this script (or the one given). A file that exists is
# kept, so running it again changes nothing. The client sends the token as
#   Authorization: Bearer $(cat secrets/alice.token)
set -eu
dir=${1:-$(dirname "$0")}
umask 077
mkdir -p "$dir/secrets"
if [ ! -e "$dir/secrets/state.key" ]; then
  head -c 32 /dev/urandom > "$dir/secrets/state.key"
  echo "made $dir/secrets/state.key"
fi
if [ ! -e "$dir/secrets/alice.token" ]; then
  # 32 random bytes in hex: characters a Bearer header carries as they are.
  od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$dir/secrets/alice.token"
  echo "made $dir/secrets/alice.token"
fi
