"""The language layer: pure text functions shared by extraction, the write path and recall.

No ORM, no settings. Each thing is parsed in one place only:

    tokens          jieba, initialised once, and its cached part-of-speech cut
    text            sentences, clauses, language and question shape
    numerals        Chinese and Arabic numbers, English counts, amounts of money
    dates           month and weekday tables, clock times, calendar dates, the date windows
                    recall reads from a query and from a memory
    relative_dates  "上周六" / "three weeks ago" resolved against the day it was said
    redaction       PII as extraction sees it (also glued to Chinese text)
"""
