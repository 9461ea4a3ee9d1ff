"""Databases: ``storage`` (self-describing HDF5 files, crash-safe writes), ``lock`` (one writer),
``query`` (lookups of perfect play) and ``verify`` (every value against its successors, with its
own ``verify_kernels``)."""
