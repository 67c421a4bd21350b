# The s0 and s3 mails' machine: "a 2-socket Skylake (80 CPUs, 2 NUMA nodes)",
# threads pinned.  The mails name no SKU: 80 CPUs is 2 sockets x 20 cores x 2
# threads (Xeon Gold 6138/6148 class).  Nothing here was measured on it: each
# value cites its table; "UNVERIFIED" marks a figure recalled, not read.
# Linux numbers every core once (socket 0, then socket 1), then the siblings,
# so 20 pinned threads are socket 0's cores and 80 are everything.
name = skylake-2s-80
description = 2-socket Skylake-SP, 2 x 20 cores x 2 threads (the s0/s3 mails), from published tables
sockets = 2
cores_per_socket = 20
threads_per_core = 2
cpu_order = smt-last
xfer_smt_ns = 7.5 [6.2 8.1] source: nviennot/core-to-core-latency README (shared/reference/scaling-model.md 2.2): SMT siblings 7.4-7.6 ns on Cascade Lake Xeon Gold 6242 / Platinum 8275CL, Skylake-SP's same-mesh successor; range: every Intel row of the table
xfer_socket_ns = 48 [44 51] source: same table, one-socket median: Gold 6242 48 ns, 8275CL 47 ns; range Broadwell E5-2695 v4 44 ns to Ice Lake 8375C 51 ns
xfer_remote_ns = 135 [108 140] source: same table, cross-socket: Gold 6242 136 ns, 8275CL 134 ns; low end Ice Lake 8375C 108 ns
handoff_qspinlock_ns = 48 [24 96] source: scaling-model.md 5.4: a qspinlock/MCS handoff is the line transfer plus one miss on the successor's MCS node: one in-socket transfer (xfer_socket_ns)
ticket_slope_ns = 24 [12 48] source: Boyd-Wickizer et al. 2012 (scaling-model.md 1.1, 5.3): each waiter adds c/2 with c about one line transfer (48 ns); range c/4 to c
tas_beta = 1 [0.5 2] source: no published constant: Anderson 1990 and Mellor-Crummey & Scott 1991 give test-and-set handoff O(waiters); 1 = one more transfer per waiter (UNVERIFIED)
freq_one_busy_mhz = 3700 [3500 3700] source: Intel ARK, Xeon Gold 6138 and 6148: max turbo 3.7 GHz (the SKU is not in the mails)
freq_all_busy_mhz = 2900 [2700 3100] source: Intel Xeon Scalable spec update, all-core non-AVX turbo of Gold 6138 (2.7 GHz) to 6148 (3.1 GHz) (UNVERIFIED)
smt_speed = 0.62 [0.55 0.7] source: scaling-model.md 5.3: f_smt about 0.55-0.7 per thread when both siblings are busy
core_speed = 1 [0.8 1.2] source: unknown against the recording machine: scaling-model.md 5.3 r_cpu with a +-20% band when the target is unavailable; --single-thread-rate replaces it
adjacent_line_prefetch = 1 [1 1] source: Intel 64 and IA-32 Optimization Reference Manual, L2 spatial prefetcher (Sandy Bridge on): a line fetched to L2 brings the other line of its 128-byte pair (the s3 mail's [1])
pair_rfo = 1 [1 1] source: the s3 mail's perf c2c on this machine: the first 64 bytes of mem_cgroup_per_node, a line no CPU writes, took over a third of all HITMs, which a store's miss on its pair partner taking the pair whole makes (Intel's manual gives the spatial prefetcher for every line fetched to L2, an RFO's too, not the state it brings the partner in: UNVERIFIED)
# The DRAM bandwidth a socket's page clearing draws on: the FD.io CSIT report's
# Intel MLC 3.5 figures for a 2-socket Skylake-SP (2 x 28 cores, 6 channels of
# DDR4-2666 a socket), quoted in shared/reference/scaling-costs.md 3.  A clear is
# stores, so the mixed 1:1 reads:writes figure (149.9 GB/s for both sockets) per
# socket, from the remote-read 51 GB/s to the local all-reads 108 GB/s.
# A TLB flush IPI's handler time on its target (ipi_target_ns) has no published
# figure for Skylake-SP (scaling-costs.md 2: "not found"): left out, so an IPI
# round costs its line transfers only.
mem_bw_socket_gbs = 75 [51 108] source: FD.io CSIT report, Calibration Data - Skylake (Intel MLC 3.5, 2S Skylake-SP): 1:1 reads-writes 149.9 GB/s over 2 sockets; range remote reads 51, local reads 108 GB/s a node
