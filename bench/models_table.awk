# bench/models_table.awk — the table of `make bench-models` from RESULT lines
# of bench/bench_models.c (key=value fields after the scenario name).
function val(k,   i, kv) {
    for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
    return ""
}
/^NOTE/ { notes = notes $0 "\n"; next }
/^RESULT/ {
    sim = val("sim_s"); wall = val("wall_s"); cpu = val("cpu_s")
    rows = rows sprintf("%-8s | %11.2f | %7.3f | %7.3f | %22.4f | %11.1fx | %13.1f | %9d | %6d | %7.1f\n",
                        $2, sim, wall, cpu, wall / sim, sim / wall, val("rss_mib"), val("events"),
                        val("requests"), val("gbps"))
}
END {
    printf "%-8s | %11s | %7s | %7s | %22s | %12s | %13s | %9s | %6s | %7s\n", "scenario", "simulated s",
           "wall s", "cpu s", "wall s per simulated s", "x real time", "peak RSS MiB", "events", "reqs", "Gb/s"
    printf "%s", rows
    printf "%s", notes
    print "(wall and cpu cover the simulation alone, not loading; target: 800G at >= 10x real time, < 1 GiB)"
}
