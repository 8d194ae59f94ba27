# bench/table.awk — turns the RESULT lines of bench_calendar and ns3_hold
# (bench/hold.h) into the tables of `make bench`.  Rates in million holds/s
# (best of HOLD_WINDOWS windows); a row missing from the input shows "-".
# Checks that every implementation popped the same times (checksums).

function rate(impl, n) { return ((impl, n) in r) ? sprintf("%8.2f", r[impl, n] / 1e6) : "       -" }
function ratio(a, b, n) {
    return (((a, n) in r) && ((b, n) in r) && r[b, n] > 0) ? sprintf("%7.1fx", r[a, n] / r[b, n]) : "       -"
}

$1 == "INFO" { $1 = ""; info = info "  " substr($0, 2) "\n"; next }
$1 == "NOTE" { $1 = ""; notes = notes "  NOTE:" $0 "\n"; next }
$1 == "RESULT" {
    impl = $2; n = $3
    r[impl, n] = $4
    if (!(n in seen)) { seen[n] = 1; sizes[++ns] = n }
    if (!(n in sum)) sum[n] = $5
    else if (sum[n] != $5) bad = bad "  " impl " at N=" n " popped other times (checksum " $5 " vs " sum[n] ")\n"
    next
}

END {
    printf "\nHold model: million holds/s (one pop + one insert), best of 5 windows; higher is better.\n"
    printf "%s", info
    printf "\nScheduler alone:\n"
    printf "%9s | %8s | %8s | %8s | %8s | %8s | %9s | %9s\n", "N", "ocasim", "ns-3 Map", "ns-3", "ns-3 PQ", "ns-3 Cal", "vs Map", "vs Heap"
    printf "%9s | %8s | %8s | %8s | %8s | %8s | %9s | %9s\n", "", "calendar", "default", "Heap", "", "", "goal 10x", ""
    for (i = 1; i <= ns; i++) {
        n = sizes[i]
        printf "%9d | %s | %s | %s | %s | %s | %9s | %9s\n", n, rate("ocasim-cal", n), rate("ns3-map", n),
            rate("ns3-heap", n), rate("ns3-pq", n), rate("ns3-calendar", n),
            ratio("ocasim-cal", "ns3-map", n), ratio("ocasim-cal", "ns3-heap", n)
    }
    printf "\nWhole engine loop (pop, set clock, call handler that schedules the next):\n"
    printf "%9s | %8s | %8s | %11s | %9s\n", "N", "engine", "post", "ns-3 Sim", "engine vs"
    printf "%9s | %8s | %8s | %11s | %9s\n", "", "own ev", "pooled", "(Map, ev alloc)", "ns-3 Sim"
    for (i = 1; i <= ns; i++) {
        n = sizes[i]
        printf "%9d | %s | %s | %11s | %9s\n", n, rate("ocasim-engine", n), rate("ocasim-post", n),
            rate("ns3-sim-map", n), ratio("ocasim-engine", "ns3-sim-map", n)
    }
    printf "\nocasim calendar variants (same hold loop):\n"
    printf "%9s | %8s | %8s | %8s | %8s | %9s\n", "N", "wheel", "wheel", "4-ary", "v0", "wheel vs"
    printf "%9s | %8s | %8s | %8s | %8s | %9s\n", "", "L0 12b", "L0 8b", "heap", "", "heap"
    for (i = 1; i <= ns; i++) {
        n = sizes[i]
        printf "%9d | %s | %s | %s | %s | %9s\n", n, rate("ocasim-cal", n), rate("ocasim-cal-l8", n),
            rate("ocasim-cal-heap4", n), rate("ocasim-cal-v0", n), ratio("ocasim-cal", "ocasim-cal-heap4", n)
    }
    printf "  wheel = sim/calendar.c as built (radix wheel, 4096 one-ns buckets at the finest level);\n"
    printf "  L0 8b = the same code with 256; 4-ary heap = the calendar before it (bench/ref/heap4/);\n"
    printf "  v0 = the first calendar (bench/ref/calendar_v0.c: 24-byte entries, branchy, no root hole).\n"
    if (bad != "") printf "\nWARNING: implementations disagree:\n%s", bad
    else if (ns > 0) printf "\nChecksums: every implementation popped the same times at every N.\n"
    printf "%s", notes
}
