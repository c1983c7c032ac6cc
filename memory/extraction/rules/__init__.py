"""The offline rule-based extractor (`rules-v1`), laid out like Zulip's markdown processors.

    extractor.py    RuleExtractor: turn → sentences → clause filters → detectors by priority
                    → merge → declarative rewrite → Candidate
    filters.py      acknowledgements, fillers, one-off task requests, revision requests
    markers.py      signals several mechanisms read: hedges, firm / change / emphasis words,
                    standing instructions, first person, stance, plan and time words
    priorities.py   the ordered table of (name, predicate, detector) entries
    classify.py     one sentence → Statement → the table's verdict → a scored Hit
    corrections.py  decisions.py  plans.py  preferences.py  facts.py   one detector family each
    episodes.py     past events of the user's life, with their resolved dates
    colon.py        "<task/decision> <topic>：<body>" statements
    answers.py      replies to the assistant's question, completed from the dialogue state
    rewrite.py      pronouns, tense and person for "用户…" / "The user…"
    phrasing.py     the final sentence: category prefixes, natural openings
    merge.py        adjacent hits of one turn about one topic become one; deferrals
    hits.py         Statement, Verdict, Hit

Slots (the conflict vocabulary) are in memory/extraction/slots/, the language layer (sentences,
numerals, dates, PII) in memory/language/, the word lists in memory/extraction/data/.
"""
