"""Loading files into the platform: readers, problems, summaries.

Every loader validates the whole file and reports every problem with file, line and
field; only a clean file is kept, written inside one transaction (a question pool is
validated as it is written, in batches, and rolled back on any problem: ``pool``);
loading the same file twice changes nothing the second time.
"""
