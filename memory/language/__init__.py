"""The language layer: pure text functions shared by extraction, the write path and recall.

No ORM, no settings. `text` splits sentences and clauses and tells languages and questions
apart; `numerals` reads Chinese and Arabic numbers and amounts; `dates` holds the month and
weekday tables, clock times, calendar dates and the date windows recall reads;
`relative_dates` resolves "上周六" / "three weeks ago" against the day it was said; `redaction`
is PII as extraction sees it (glued to Chinese text). Each is parsed in one place only.
"""
