# Sourced by bench/exporter.sh and bench/orderfile.sh: pushdiag responders on loopback as the
# exporter's push servers. Needs BIN and OUT. Sets pids (stopped when the script exits, with
# anything the script adds), base (the first port) and servers (the exporter's --server flags).
pids=()
cleanup() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

start_responders() {  # start_responders N
  base=$((20000 + RANDOM % 20000))
  servers=()
  local i
  for i in $(seq 0 $(($1 - 1))); do
    "$BIN" responder --listen 127.0.0.1:$((base + i)) 2> "$OUT/exp-responder-$i.log" &
    pids+=($!)
    servers+=(--server 127.0.0.1:$((base + i)))
  done
}
