"""Wall seconds of each pair of a recorded run, which ``morris solve --dry-run`` scales by this
machine's speed on the pairs it has timed (``estimate.reference_factor``). Written by
``benchmarks/results_table.py --reference``; the run is described in benchmarks/RESULTS.md."""

HOST = '2-core VM, AMD EPYC host, 2 threads, numba 0.68.1, 2026-11-23/24 (the 9-men run of benchmarks/RESULTS.md, some pairs under load)'
RULES = 'standard'
SECONDS = {
    "3-3": 0.274,
    "3-4 and 4-3": 0.408,
    "3-5 and 5-3": 1.394,
    "4-4": 0.167,
    "3-6 and 6-3": 4.668,
    "4-5 and 5-4": 0.966,
    "3-7 and 7-3": 22.133,
    "4-6 and 6-4": 11.194,
    "5-5": 2.62,
    "3-8 and 8-3": 60.023,
    "4-7 and 7-4": 43.056,
    "5-6 and 6-5": 21.858,
    "3-9 and 9-3": 84.751,
    "4-8 and 8-4": 177.592,
    "5-7 and 7-5": 238.91,
    "6-6": 27.057,
    "4-9 and 9-4": 182.382,
    "5-8 and 8-5": 269.799,
    "6-7 and 7-6": 250.27,
    "5-9 and 9-5": 387.404,
    "6-8 and 8-6": 532.005,
    "7-7": 218.117,
    "6-9 and 9-6": 699.636,
    "7-8 and 8-7": 694.714,
    "7-9 and 9-7": 1033.499,
    "8-8": 435.202,
    "8-9 and 9-8": 1356.192,
    "9-9": 671.304,
}
