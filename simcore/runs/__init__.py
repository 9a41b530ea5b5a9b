"""The run layer: many hands into a run directory (batches, chunks, Parquet shards, resume) and
the analysis that reads run directories back in memory that does not grow with the run.

Modules: ``batch`` (the Python wrapper of one engine batch), ``runner`` (a run's chunks, executors,
resume), ``shards`` (the Parquet tables, their columns and the manifest), ``files`` (a run
directory's lifecycle), ``scan`` (reading runs shard by shard), ``tally`` (jitted summary
tallies), ``analysis`` (load, SQL, summaries, intervals), ``warmup`` (a first run compiling on two
cores)."""

DEFAULT_CHUNK_HANDS = 100_000  # hands a chunk (one shard per table); kept light: the CLI imports it
# what a run's summary groups its seats by: the seats table's columns of that name, or dealer/others
SUMMARY_BY = ("strategy", "play", "exchange_policy", "void_policy", "seat", "dealer")
