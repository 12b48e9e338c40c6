"""Analysis of records: reading, statistics (metrics), figures, tables, the report page; no engine."""
