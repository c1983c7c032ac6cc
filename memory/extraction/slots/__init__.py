"""Slots: the conflict vocabulary. A slot names the question a statement answers about the person
("hotel.default", "meeting:产品部周会", "thing:网盘"); two statements with one slot and different
values contradict each other. Used by the rule extractor and by every direct write
(`derive.slot_for`), so API-written and extracted memories share slot keys.

    derive.py   derive_slot (lexicon topics, languages, styles, then the general families below)
    generic.py  "<thing> is / changed to <value>" in Chinese and English, thing normalisation
    events.py   dated events of the user's world ("年会定在一月十八号" → event slot, "01-18")
    usage.py    habitual use of a named service ("买菜用盒马", "I bank with Chase")
"""
