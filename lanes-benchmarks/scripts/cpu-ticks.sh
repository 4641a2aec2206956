# CPU ticks from /proc, sourced by kafka-cpu.sh and postgres-ab.sh (divide by `getconf CLK_TCK` for seconds).

# user + sys ticks of a process; with "reaped", also those of its waited-for children
ticks() { awk -v r="${2:-}" '{ print $14 + $15 + (r ? $16 + $17 : 0) }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# the PostgreSQL server's ticks: its postmaster (with the children it reaped) and its children now; needs $pg_pid
pg_ticks() {
  local sum
  sum=$(ticks "$pg_pid" reaped)
  for child in $(pgrep -P "$pg_pid"); do sum=$((sum + $(ticks "$child"))); done
  echo "$sum"
}
