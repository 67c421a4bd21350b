// SPDX-License-Identifier: MIT
/*
 * The analytic twin of the simulation: exact mean-value analysis
 * (Reiser and Lavenberg) of the closed network the CPUs and the locks
 * form, one class of customer (a CPU), a delay station for the work
 * outside locks and one FCFS queue per shared lock; and the machine-
 * repairman closed form the simulation is tested against; and one lock
 * by its implementation, the birth-death chain whose service grows with
 * the waiters as the lock's handoff does.
 */
#include <math.h>
#include <stdlib.h>

#include "predict/predict.h"

double pred_mva(int n, double z, int k, const double *d, double *resp)
{
	double *q = calloc(k ? k : 1, sizeof(*q)), *r = calloc(k ? k : 1, sizeof(*r));
	double x = 0;
	int m, i;

	if (!q || !r) {
		free(q);
		free(r);
		return NAN;
	}
	for (m = 1; m <= n; m++) {
		double sum = z;

		/* an arrival finds the queue as it was with one customer fewer */
		for (i = 0; i < k; i++) {
			r[i] = d[i] * (1 + q[i]);
			sum += r[i];
		}
		x = sum > 0 ? m / sum : INFINITY;
		for (i = 0; i < k; i++)
			q[i] = x * r[i];
	}
	for (i = 0; resp && i < k; i++)
		resp[i] = r[i];
	free(q);
	free(r);
	return x;
}

/*
 * M/M/1//N: P(k busy or waiting) is P0 * N!/(N-k)! * (S/Z)^k.  Summed as
 * a running product so that N = 256 does not overflow.
 */
void pred_repairman(int n, double z, double s, double *x, double *wait)
{
	double term = 1, sum = 1, rho = s / z, p0;
	int k;

	for (k = 1; k <= n; k++) {
		term *= (n - k + 1) * rho;
		sum += term;
	}
	p0 = 1 / sum;
	*x = (1 - p0) / s;
	/* R = N/X - Z, and the wait is R less the service */
	*wait = n / *x - z - s;
}

void pred_lock_chain(int n, double z, double s, enum lock_impl impl,
		     const struct pred_costs *c, double x, double *x_out, double *wait)
{
	double term = 1, sum = 1, thr = 0;
	int k;

	if (n < 1) {
		*x_out = 0;
		*wait = 0;
		return;
	}
	if (z <= 0) {
		/* every CPU is always in the queue */
		*x_out = 1 / (s + (n > 1 ? pred_handoff(impl, c, x, n - 1) : 0));
		*wait = n / *x_out - s;
		return;
	}
	/*
	 * P_k = P_0 prod_{i<k} lambda_i / mu_{i+1}: a running product of
	 * unnormalised terms, summed with the throughput sum_k P_k mu_k.
	 */
	for (k = 1; k <= n; k++) {
		double svc = s + (k > 1 ? pred_handoff(impl, c, x, k - 1) : 0);

		term *= (double)(n - k + 1) / z * svc;
		sum += term;
		thr += term / svc;
	}
	*x_out = thr / sum;
	*wait = n / *x_out - z - s;
}
