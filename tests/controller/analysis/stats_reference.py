#!/usr/bin/env python3
"""Reference values for stats_test.cc, computed independently of stats.cc.

stats.cc evaluates Student's t distribution through the regularized
incomplete beta function (a continued fraction). This script instead
integrates the t density numerically (composite Simpson's rule on
[0, t], 200,000 intervals; the density from math.lgamma) and inverts it by
bisection, using only the Python standard library (no scipy on the
development machines). Run: python3 stats_reference.py
"""
import math


def density(t, nu):
    c = math.exp(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2))
    return c / math.sqrt(nu * math.pi) * (1 + t * t / nu) ** (-(nu + 1) / 2)


def central(t, nu, n=200000):
    """P(|T| <= t) = 2 * integral of the density from 0 to t."""
    h = t / n
    s = density(0, nu) + density(t, nu)
    for i in range(1, n):
        s += (4 if i % 2 else 2) * density(i * h, nu)
    return 2 * s * h / 3


def quantile(level, nu):
    """The t with P(|T| <= t) = level."""
    lo, hi = 0.0, 1.0
    while central(hi, nu, 20000) < level:
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        if central(mid, nu, 20000) < level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_ci(a):
    n = len(a)
    m = sum(a) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in a) / (n - 1))
    q = quantile(0.95, n - 1)
    return dict(mean=m, sd=sd, ci=(m - q * sd / math.sqrt(n), m + q * sd / math.sqrt(n)))


def welch(baseline, other):
    """Welch's test of other - baseline."""
    nb, no = len(baseline), len(other)
    mb, mo = sum(baseline) / nb, sum(other) / no
    vb = sum((x - mb) ** 2 for x in baseline) / (nb - 1) / nb
    vo = sum((x - mo) ** 2 for x in other) / (no - 1) / no
    se = math.sqrt(vb + vo)
    t = (mo - mb) / se
    dof = (vb + vo) ** 2 / (vb ** 2 / (nb - 1) + vo ** 2 / (no - 1))
    q = quantile(0.95, dof)
    return dict(t=t, dof=dof, p=1 - central(abs(t), dof),
                ci=(mo - mb - q * se, mo - mb + q * se))


if __name__ == "__main__":
    for nu in (1, 2.5, 4.5, 10, 30):
        print("t_0.975 dof", nu, repr(quantile(0.95, nu)))
    for t, nu in ((2.0, 3.7), (1.0, 0.7), (0.5, 12.25)):
        print("two-sided p t", t, "dof", nu, repr(1 - central(t, nu)))
    sleep1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    sleep2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    print("sleep group 1 - group 2", welch(sleep2, sleep1))
    ts1 = [11, 9, 10, 11, 10, 12, 9, 11, 12, 9]
    ts2 = [11, 13, 10, 13, 12, 9, 11, 12, 12, 11]
    print("ts1 - ts2", welch(ts2, ts1))
    print("ts1 mean CI", mean_ci(ts1))
