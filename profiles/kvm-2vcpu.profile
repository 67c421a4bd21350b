# This machine, measured by `lrulab calibrate --name kvm-2vcpu --out profiles/kvm-2vcpu.profile`:
# a KVM guest with 2 vCPUs, quiet (nothing else running) when measured on 2026-12-01 20:40 UTC.
# An earlier measurement taken while other work ran gave line transfers of 112 ns [75 419].
# lrulab machine profile (lrulab predict --machine); every cost is
# VALUE [LO HI] source: WHERE IT CAME FROM
name = kvm-2vcpu
description = Intel(R) Xeon(R) Processor, 2 processors, Linux 6.18.44-fc-v769, clock tsc
sockets = 1
cores_per_socket = 2
threads_per_core = 1
cpu_order = smt-last
xfer_smt_ns = 64.6 [59.8 71.48] source: no such pair of processors here; xfer_socket_ns, unused for this topology
xfer_socket_ns = 64.6 [59.8 71.48] source: lrulab calibrate: CAS ping-pong CPU 0 <-> 1, round trip / 2, median of 5 (range: min-max)
xfer_remote_ns = 64.6 [59.8 71.48] source: no such pair of processors here; xfer_socket_ns, unused for this topology
handoff_qspinlock_ns = 70.4 [0 87.4] source: lrulab calibrate: qspinlock release to the waiter's grant, 1 waiter, median 135.0 ns (P10-P90 42.0-152.0) less xfer_socket_ns
ticket_slope_ns = 67.4 [0 133.4] source: lrulab calibrate: ticket handoff with 1 waiter 132.0 ns less xfer_socket_ns (no processors for a slope)
tas_beta = 1.415 [0 2.622] source: lrulab calibrate: test-and-set handoff with 1 waiter 156.0 ns / xfer_socket_ns - 1
freq_one_busy_mhz = 2600 [2600 2600] source: /proc/cpuinfo cpu MHz (the system shows no cpufreq)
freq_all_busy_mhz = 2667 [2534 2667] source: lrulab calibrate: a busy loop 16.738 ms alone, 16.317 ms with all 2 processors busy (medians of 5), times freq_one_busy_mhz
smt_speed = 1 [1 1] source: no SMT siblings here; unused
core_speed = 1 [1 1] source: the recording machine itself
adjacent_line_prefetch = 1 [1 1] source: lrulab calibrate: /proc/cpuinfo vendor_id GenuineIntel; Intel's optimization manual: the L2 spatial prefetcher fetches 128-byte aligned pairs
pair_rfo = 0 [0 0] source: lrulab calibrate's probe, three runs on 2026-12-03: -20.4 to +20.0 ns a turn with the two lines in one 128-byte pair than apart, against half a transfer (33-48 ns), its check +110 ns; and lrulab itself, bench fault-free --type shmem 4K at 2 threads, release against the pncold build, 5 rounds alternated: +2.2% median (0.87-1.10), where a store taking the pair whole predicts +18%
# No memory bandwidth (mem_bw_socket_gbs): no published figure for this
# machine was found, so page clearing's memory traffic is left out of its
# predictions.  A TLB flush's IPI round is measured (lrulab calibrate,
# through membarrier's IPIs): in this guest an IPI costs its target and its
# sender microseconds, the VM exits of an interrupt without IPI
# virtualisation, a hundred times the round's line transfers.
ipi_target_ns = 7219 [4941 11330] source: lrulab calibrate, four runs on 2026-12-03: membarrier(PRIVATE_EXPEDITED) from CPU 0, an IPI round of smp_call_function_many() as a TLB flush's, to CPU 1 spinning in the process: the spinner's time lost per call, medians 6124-11330 (their median), range every run's min-max
ipi_send_ns = 3210 [1964 6006] source: lrulab calibrate, the same four runs: the call's time less a getppid's, the target's and three line transfers: the flusher's own part of the round, medians 2823-4890 (their median), range every run's min-max
# Machines of this kind differ from one session to the next (handoffs, IPIs:
# docs/results/2026-12-04-intel-guest.md): predict/validate.sh calibrates the
# one it runs on; this file is one such measurement, kept for tests and replays.
