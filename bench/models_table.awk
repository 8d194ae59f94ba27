# bench/models_table.awk — the table of `make bench-models` from RESULT lines
# of bench/bench_models.c (key=value fields after the scenario name).
function val(k,   i, kv) {
    for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
    return ""
}
/^NOTE/ { notes = notes $0 "\n"; next }
/^RESULT/ {
    sim = val("sim_s"); wall = val("wall_s"); cpu = val("cpu_s")
    if (cpu <= 0) cpu = 1e-6
    if (wall <= 0) wall = 1e-6
    rows = rows sprintf("%-8s | %11.3f | %7.3f | %7.3f | %11.2fx | %10.2fx | %9.3f | %13.1f | %9d | %7d | %7.1f\n",
                        $2, sim, wall, cpu, sim / wall, sim / cpu, 1e6 * cpu / val("events"), val("rss_mib"),
                        val("events"), val("requests"), val("gbps"))
}
END {
    printf "%-8s | %11s | %7s | %7s | %12s | %11s | %9s | %13s | %9s | %7s | %7s\n", "scenario", "simulated s",
           "wall s", "cpu s", "sim s/wall s", "sim s/cpu s", "us/event", "peak RSS MiB", "events", "reqs", "Gb/s"
    printf "%s", rows
    printf "%s", notes
    print "(wall and cpu cover the simulation alone, not loading; sim s/cpu s is x real time by CPU time."
    print " Targets: 800G >= 10x; issue 18: 800G-wi >= 30x, 64x64 >= 5x, all < 1 GiB)"
}
