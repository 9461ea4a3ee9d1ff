"""Wall seconds of each pair of a recorded run, which ``morris solve --dry-run`` scales by this
machine's speed on the pairs it has timed (``estimate.reference_factor``). Written by
``benchmarks/results_table.py --reference``; the run is described in benchmarks/RESULTS.md."""

HOST = '2-core VM, AMD EPYC host, 2 threads, numba 0.68.1, 2026-11-24 (the 9-men rerun of benchmarks/RESULTS.md, quiet)'
RULES = 'standard'
SECONDS = {
    "3-3": 0.115,
    "3-4 and 4-3": 0.146,
    "3-5 and 5-3": 0.686,
    "4-4": 0.051,
    "3-6 and 6-3": 2.405,
    "4-5 and 5-4": 0.367,
    "3-7 and 7-3": 10.821,
    "4-6 and 6-4": 2.582,
    "5-5": 0.638,
    "3-8 and 8-3": 22.084,
    "4-7 and 7-4": 17.195,
    "5-6 and 6-5": 8.766,
    "3-9 and 9-3": 31.781,
    "4-8 and 8-4": 35.252,
    "5-7 and 7-5": 46.633,
    "6-6": 11.084,
    "4-9 and 9-4": 50.452,
    "5-8 and 8-5": 94.522,
    "6-7 and 7-6": 91.769,
    "5-9 and 9-5": 126.605,
    "6-8 and 8-6": 184.038,
    "7-7": 77.226,
    "6-9 and 9-6": 241.657,
    "7-8 and 8-7": 254.74,
    "7-9 and 9-7": 333.997,
    "8-8": 143.38,
    "8-9 and 9-8": 319.108,
    "9-9": 114.942,
}
