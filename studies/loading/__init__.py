"""Loading files into the platform: readers, problems, summaries.

Every loader validates the whole file first and reports every problem with file,
line and field; only a clean file is written, inside one transaction; loading the
same file twice changes nothing the second time.
"""
