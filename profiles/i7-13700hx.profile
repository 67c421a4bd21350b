# The s2 mail's desktop: "an i7-13700HX with turbo disabled and the performance
# governor".  8 P-cores with SMT and 8 E-cores: 24 CPUs.  A profile has one
# kind of core, so this one is 12 cores x 2 threads with siblings numbered
# next to each other as Linux numbers the P-cores; the E-cores' lower speed
# and missing SMT are not modelled.  Each value cites its table.
name = i7-13700hx
description = Intel Core i7-13700HX (Raptor Lake, 8P+8E, 24 CPUs) with turbo off (the s2 mail), as 12 x 2; from published tables
sockets = 1
cores_per_socket = 12
threads_per_core = 2
cpu_order = smt-adjacent
xfer_smt_ns = 6.5 [5.3 7] source: nviennot/core-to-core-latency README (scaling-model.md 2.2): client SMT siblings 6.2 ns (i9-9900K), 6.9 ns (i7-6700K)
xfer_socket_ns = 25 [17 35] source: same table, client parts: i9-9900K 21 ns, i7-6700K 20 ns; widened for Raptor Lake's longer ring and E-core clusters (UNVERIFIED)
xfer_remote_ns = 25 [17 35] source: one socket: no remote pair; xfer_socket_ns, unused for this topology
handoff_qspinlock_ns = 25 [17 35] source: scaling-model.md 5.4: line transfer plus one miss on the successor's MCS node
ticket_slope_ns = 12 [6 25] source: Boyd-Wickizer et al. 2012: c/2 per waiter, c about one transfer
tas_beta = 1 [0.5 2] source: no published constant (Anderson 1990; Mellor-Crummey & Scott 1991); UNVERIFIED
freq_one_busy_mhz = 2100 [2100 2100] source: the s2 mail: turbo disabled; Intel ARK i7-13700HX: P-core base 2.1 GHz
freq_all_busy_mhz = 2100 [1500 2100] source: turbo disabled: P-cores hold base 2.1 GHz; E-core base 1.5 GHz is the low end
smt_speed = 0.62 [0.55 0.7] source: scaling-model.md 5.3: f_smt about 0.55-0.7 per thread
core_speed = 1 [0.7 1.2] source: unknown against the recording machine (2.1 GHz without turbo): scaling-model.md 5.3 r_cpu band, widened low for the base clock
locked_rmw_ns = 9.08 [8.57 12.7] source: uops.info CMPXCHG_LOCK (M64, R64), Alder Lake-P (Raptor Lake's P-core is its Golden Cove): 19 cycles, latency and measured loop throughput (19.07), at the mail's 2.1 GHz; low end 18 cycles (the Alder Lake-E latency) at 2.1 GHz, high end 19 cycles on an E-core at its 1.5 GHz base
adjacent_line_prefetch = 1 [1 1] source: Intel 64 and IA-32 Optimization Reference Manual, L2 spatial prefetcher (Sandy Bridge on): a line fetched to L2 brings the other line of its 128-byte pair (the s3 mail's [1])
# pair_rfo (a store's miss taking its 128-byte pair whole) has no source for this CPU: left out, 0
# No memory bandwidth (mem_bw_socket_gbs) and no TLB flush IPI handler time
# (ipi_target_ns): no published figure for this machine was found, so page
# clearing's memory traffic and the IPI handler are left out of its predictions.
