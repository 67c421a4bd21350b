# A 16-core single-socket Intel Xeon, family 6 model 207 (0xCF, 5th generation
# Xeon Scalable, Emerald Rapids), the predictor's validation box (scaling-model.md
# section 7).  Not measured here: run `lrulab calibrate --out FILE` on it and use
# that.  Each value cites its table; "UNVERIFIED" marks a figure recalled.
name = xeon-16c-207
description = Intel Xeon family 6 model 207 (Emerald Rapids), 1 socket x 16 cores x 2 threads, from published tables
sockets = 1
cores_per_socket = 16
threads_per_core = 2
cpu_order = smt-last
xfer_smt_ns = 7.5 [5.3 10] source: nviennot/core-to-core-latency README (scaling-model.md 2.2): SMT siblings 5.3-10 ns over every CPU of the table; no Emerald Rapids row
xfer_socket_ns = 55 [36 72] source: KCORES/core-to-core-latency-plus, Sapphire Rapids W9-3475X (same core and mesh generation): pairs 36-72 ns, most 45-65 (scaling-model.md 2.2); no Emerald Rapids data
xfer_remote_ns = 55 [36 72] source: one socket: no remote pair; xfer_socket_ns, unused for this topology
handoff_qspinlock_ns = 55 [36 72] source: scaling-model.md 5.4: line transfer plus one miss on the successor's MCS node: one more in-socket transfer
ticket_slope_ns = 28 [14 55] source: Boyd-Wickizer et al. 2012 (scaling-model.md 1.1, 5.3): c/2 per waiter with c about one transfer
tas_beta = 1 [0.5 2] source: no published constant (Anderson 1990; Mellor-Crummey & Scott 1991: O(waiters)); 1 = one more transfer per waiter (UNVERIFIED)
freq_one_busy_mhz = 3900 [3500 4100] source: Intel ARK, 16-core Emerald Rapids Xeon Gold 6526Y: max turbo 3.9 GHz (the SKU is not given: range over 16-core parts; UNVERIFIED)
freq_all_busy_mhz = 3100 [2800 3500] source: all-core turbo of 16-core Emerald Rapids parts, between base 2.8 GHz and max turbo (UNVERIFIED)
smt_speed = 0.62 [0.55 0.7] source: scaling-model.md 5.3: f_smt about 0.55-0.7 per thread when both siblings are busy
core_speed = 1 [0.8 1.2] source: unknown against the recording machine: scaling-model.md 5.3 r_cpu with a +-20% band; --single-thread-rate replaces it
adjacent_line_prefetch = 1 [1 1] source: Intel 64 and IA-32 Optimization Reference Manual, L2 spatial prefetcher (Sandy Bridge on): a line fetched to L2 brings the other line of its 128-byte pair (the s3 mail's [1])
# pair_rfo (a store's miss taking its 128-byte pair whole) has no source for this CPU: left out, 0
# No memory bandwidth (mem_bw_socket_gbs) and no TLB flush IPI handler time
# (ipi_target_ns): no published figure for this machine was found, so page
# clearing's memory traffic and the IPI handler are left out of its predictions.
