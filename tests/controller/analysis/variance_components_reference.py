#!/usr/bin/python3
"""Reference values for variance_components_test.cc, computed independently
of variance_components.cc.

Sums of squares, mean squares, n0, the variance components, ICC(1), the CV
of the group means and the max/min ratio are computed exactly in rational
arithmetic (fractions.Fraction of the data's decimal text), then rounded
once to a float. The F upper tail and the t quantile come from SciPy
(scipy.stats.f.sf, scipy.stats.t.ppf; Debian's python3-scipy, `apt-get
install python3-scipy`), which evaluates them with the Cephes library, not
with the continued fraction stats.cc uses. scipy.stats.f_oneway is run as a
cross-check of F and p.

Run: /usr/bin/python3 variance_components_reference.py
"""
import math
from fractions import Fraction

from scipy import stats

# R's datasets::PlantGrowth (Dobson 1983): dried plant weight, 3 groups of
# 10. R: anova(lm(weight ~ group, data = PlantGrowth)) prints
#   group      2  3.7663  1.8832  4.8461 0.01591
#   Residuals 27 10.4921  0.3886
PLANT_GROWTH = {
    "ctrl": "4.17 5.58 5.18 6.11 4.50 4.61 5.17 4.53 5.33 5.14",
    "trt1": "4.81 4.17 4.41 3.59 5.87 3.83 6.03 4.89 4.32 4.69",
    "trt2": "6.31 5.12 5.54 5.50 5.37 5.29 4.92 6.15 5.80 5.26",
}

# R's datasets::chickwts (unbalanced: 12, 10, 12, 11, 14, 12 chicks). R:
# anova(lm(weight ~ feed, data = chickwts)) prints
#   feed       5 231129   46226  15.365 5.936e-10
#   Residuals 65 195556    3009
CHICKWTS = {
    "casein": "368 390 379 260 404 318 352 359 216 222 283 332",
    "horsebean": "179 160 136 227 217 168 108 124 143 140",
    "linseed": "309 229 181 141 260 203 148 169 213 257 244 271",
    "meatmeal": "325 257 303 315 380 153 263 242 206 344 258",
    "soybean": "243 230 248 327 329 250 193 271 316 267 199 171 158 248",
    "sunflower": "423 340 392 339 341 226 320 295 334 322 297 318",
}

# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges. The paper
# gives BMS = 11.24, WMS = 6.26 and ICC(1,1) = .17; in the one-way model
# each target is a group of its 4 ratings.
SHROUT_FLEISS = {
    "1": "9 2 5 8",
    "2": "6 1 3 2",
    "3": "8 4 6 8",
    "4": "7 1 2 6",
    "5": "10 5 6 9",
    "6": "6 2 4 7",
}

# Four devices of one class, unbalanced (4, 3, 5, 2 runs), the last one
# about 15% slower: minibatch times in ms.
DEVICES = {
    "xavier-0": "100.2 99.8 100.5 100.1",
    "xavier-1": "101.0 100.4 100.9",
    "xavier-2": "99.5 99.9 100.3 99.7 100.0",
    "xavier-3": "115.3 114.8",
}


def one_way(groups):
    data = {g: [Fraction(v) for v in text.split()] for g, text in groups.items()}
    k = len(data)
    sizes = [len(v) for v in data.values()]
    n_total = sum(sizes)
    means = [sum(v) / len(v) for v in data.values()]
    grand = sum(sum(v) for v in data.values()) / n_total
    ss_between = sum(n * (m - grand) ** 2 for n, m in zip(sizes, means))
    ss_within = sum(sum((x - m) ** 2 for x in v)
                    for v, m in zip(data.values(), means))
    df_b, df_w = k - 1, n_total - k
    ms_b, ms_w = ss_between / df_b, ss_within / df_w
    f = ms_b / ms_w
    n0 = (n_total - Fraction(sum(n * n for n in sizes), n_total)) / (k - 1)
    var_b = max(Fraction(0), (ms_b - ms_w) / n0)
    var_w = ms_w
    mean_of_means = sum(means) / k
    var_means = sum((m - mean_of_means) ** 2 for m in means) / (k - 1)
    out = {
        "k": k, "N": n_total, "grand_mean": float(grand),
        "ss_between": float(ss_between), "ss_within": float(ss_within),
        "df": (df_b, df_w), "ms_between": float(ms_b),
        "ms_within": float(ms_w), "F": float(f),
        "p": stats.f.sf(float(f), df_b, df_w),
        "n0": float(n0), "var_between": float(var_b),
        "var_within": float(var_w),
        "sd_between": math.sqrt(var_b), "sd_within": math.sqrt(var_w),
        "icc": float(var_b / (var_b + var_w)),
        "cv": math.sqrt(var_means) / float(mean_of_means),
        "max_min": float(max(means) / min(means)),
    }
    check = stats.f_oneway(*[[float(x) for x in v] for v in data.values()])
    assert abs(check.statistic - out["F"]) < 1e-9 * out["F"]
    assert abs(check.pvalue - out["p"]) <= 1e-12 + 1e-9 * out["p"]
    # Leave-one-out prediction intervals of each group mean (k >= 3).
    if k >= 3:
        t = stats.t.ppf(0.975, k - 2)
        loo = {}
        for i, name in enumerate(data):
            others = [m for j, m in enumerate(means) if j != i]
            mo = sum(others) / (k - 1)
            sd = math.sqrt(sum((m - mo) ** 2 for m in others) / (k - 2))
            half = t * sd * math.sqrt(1 + 1 / (k - 1))
            loo[name] = (float(mo) - half, float(mo) + half,
                         abs(float(means[i] - mo)) > half)
        out["t"] = t
        out["loo"] = loo
    return out


if __name__ == "__main__":
    for name, groups in (("PlantGrowth", PLANT_GROWTH),
                         ("chickwts", CHICKWTS),
                         ("Shrout-Fleiss", SHROUT_FLEISS),
                         ("devices", DEVICES)):
        print(name)
        for key, value in one_way(groups).items():
            print("  ", key, repr(value))
