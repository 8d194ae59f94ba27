# bench/table.awk — turns the RESULT lines of bench_calendar and ns3_hold
# (bench/hold.h) into the tables of `make bench`.  Rates in million holds/s
# (best of HOLD_WINDOWS windows); a row missing from the input shows "-".
# Checks that every implementation popped the same times (checksums).

function rate(impl, n) { return ((impl, n) in r) ? sprintf("%8.2f", r[impl, n] / 1e6) : "       -" }
function ratio(a, b, n) {
    return (((a, n) in r) && ((b, n) in r) && r[b, n] > 0) ? sprintf("%7.1fx", r[a, n] / r[b, n]) : "       -"
}

$1 == "INFO" { $1 = ""; l = "  " substr($0, 2) "\n"; if (!(l in seenl)) { seenl[l] = 1; info = info l }; next }
$1 == "NOTE" { $1 = ""; l = "  NOTE:" $0 "\n"; if (!(l in seenl)) { seenl[l] = 1; notes = notes l }; next }
$1 == "RESULT" {
    impl = $2; n = $3
    r[impl, n] = $4
    if (!(n in seen)) { seen[n] = 1; sizes[++ns] = n }
    if (!(n in sum)) sum[n] = $5
    else if (sum[n] != $5) bad = bad "  " impl " at N=" n " popped other times (checksum " $5 " vs " sum[n] ")\n"
    next
}

END {
    printf "\nHold model: million holds per CPU second (one pop + one insert), best of 5 windows; higher is better.\n"
    printf "%s", info
    printf "\nScheduler alone:\n"
    printf "%9s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %-20s\n", "N", "ocasim", "ns-3 Map", "ns-3", "ns-3 PQ", "ns-3 Cal",
        "vs Map", "vs Heap", "vs PQ", "vs Cal", "vs best ns-3"
    printf "%9s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %-20s\n", "", "calendar", "default", "Heap", "", "", "", "", "", "", "(goal 10x)"
    nns = split("ns3-map ns3-heap ns3-pq ns3-calendar", nsimpl, " ")
    split("Map Heap PQ Cal", nsname, " ")
    for (i = 1; i <= ns; i++) {
        n = sizes[i]
        best = ""; bname = ""
        for (j = 1; j <= nns; j++)
            if (((nsimpl[j], n) in r) && (best == "" || r[nsimpl[j], n] > best)) { best = r[nsimpl[j], n]; bname = nsname[j] }
        vb = (best != "" && best > 0 && (("ocasim-cal", n) in r)) ? sprintf("%6.1fx (best: %s)", r["ocasim-cal", n] / best, bname) : "-"
        printf "%9d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %-20s\n", n, rate("ocasim-cal", n), rate("ns3-map", n),
            rate("ns3-heap", n), rate("ns3-pq", n), rate("ns3-calendar", n),
            ratio("ocasim-cal", "ns3-map", n), ratio("ocasim-cal", "ns3-heap", n),
            ratio("ocasim-cal", "ns3-pq", n), ratio("ocasim-cal", "ns3-calendar", n), vb
    }
    printf "  vs best ns-3: over the fastest ns-3 scheduler measured at that N (a row missing from the run is not counted)\n"
    printf "\nWhole engine loop (pop, set clock, call handler that schedules the next):\n"
    printf "%9s | %8s | %8s | %11s | %9s\n", "N", "engine", "post", "ns-3 Sim", "engine vs"
    printf "%9s | %8s | %8s | %11s | %9s\n", "", "own ev", "pooled", "(Map, ev alloc)", "ns-3 Sim"
    for (i = 1; i <= ns; i++) {
        n = sizes[i]
        printf "%9d | %s | %s | %11s | %9s\n", n, rate("ocasim-engine", n), rate("ocasim-post", n),
            rate("ns3-sim-map", n), ratio("ocasim-engine", "ns3-sim-map", n)
    }
    printf "\nCandidate pending-event structures (same hold loop; chosen = sim/calendar.c as built):\n"
    printf "%9s | %8s | %8s | %8s | %8s | %8s | %8s | %-22s\n", "N", "chosen", "lists", "2-level", "ladder", "4-ary", "8-ary", "best / chosen"
    printf "%9s | %8s | %8s | %8s | %8s | %8s | %8s | %-22s\n", "", "(lists +", "wheel", "+spill", "queue", "heap", "heap", "(goal <= 1.2x)"
    printf "%9s | %8s |\n", "", "arrays)"
    ncand = split("ocasim-cal ocasim-cal-list ocasim-cal-wheel2 ocasim-cal-ladder ocasim-cal-heap4 ocasim-cal-heap8", cand, " ")
    split("chosen lists 2-level ladder 4-ary 8-ary", cname, " ")
    for (i = 1; i <= ns; i++) {
        n = sizes[i]
        best = ""; bname = ""
        for (j = 1; j <= ncand; j++)
            if (((cand[j], n) in r) && (best == "" || r[cand[j], n] > best)) { best = r[cand[j], n]; bname = cname[j] }
        cmp = (best != "" && (("ocasim-cal", n) in r) && r["ocasim-cal", n] > 0) ? sprintf("%5.2fx (best: %s)", best / r["ocasim-cal", n], bname) : "-"
        printf "%9d | %s | %s | %s | %s | %s | %s | %-22s\n", n, rate("ocasim-cal", n), rate("ocasim-cal-list", n),
            rate("ocasim-cal-wheel2", n), rate("ocasim-cal-ladder", n), rate("ocasim-cal-heap4", n), rate("ocasim-cal-heap8", n), cmp
    }
    printf "  chosen = sim/calendar.c: radix wheel, list buckets up to 49152 pending, array buckets above;\n"
    printf "  lists = sim/calendar.c built never to switch to arrays (-DSIM_CALENDAR_UP_AT=2^32-1); 2-level +spill and\n"
    printf "  ladder queue: bench/ref/alt/; heaps (index in the element): bench/ref/heap4/.\n"
    if (bad != "") printf "\nWARNING: implementations disagree:\n%s", bad
    else if (ns > 0) printf "\nChecksums: every implementation popped the same times at every N.\n"
    printf "%s", notes
}
