"""Alias map (memory/aliases.py)."""

from memory.aliases import (
    entity_type,
    expand_entity,
    find_entities,
    normalize_entities,
    normalize_entity,
)
from memory.extraction.lexicon import ENTITIES


def test_normalize_zh_en():
    assert normalize_entity("馆子") == "餐厅"
    assert normalize_entity("restaurant") == "餐厅"
    assert normalize_entity("饭店") == "餐厅"
    for s in ("酒店", "宾馆", "hotel", "Hotel "):
        assert normalize_entity(s) == "酒店"
    for s in ("素食", "吃素", "vegetarian", "不吃肉"):
        assert normalize_entity(s) == "素食"
    for s in ("周会", "例会", "weekly meeting"):
        assert normalize_entity(s) == "周会"
    assert normalize_entity("postgres") == "PostgreSQL"
    assert normalize_entity("k8s") == "Kubernetes"
    assert normalize_entity("Osaka") == "大阪"


def test_unknown_names_pass_through():
    assert normalize_entity("  Acme Widgets ") == "Acme Widgets"
    assert normalize_entity("") == ""


def test_normalize_entities_dedups_in_order():
    assert normalize_entities(["馆子", "Java", "restaurant", "java", "饭店"]) == ["餐厅", "Java"]


def test_expand_entity():
    forms = expand_entity("餐厅")
    assert {"餐厅", "馆子", "restaurant", "饭店"} <= forms
    assert "吃素" in expand_entity("vegetarian")


def test_find_entities_zh_en_and_word_boundaries():
    assert find_entities("帮我找家 vegetarian 馆子") == ["素食", "餐厅"]
    assert find_entities("我们后端用 Go 和 PostgreSQL") == ["Go", "PostgreSQL"]
    # "go" as an English verb is not the language; "Java" inside "JavaScript" is not Java
    assert find_entities("let's go with JavaScript") == ["JavaScript"]
    assert find_entities("红眼航班太累了，I avoid red-eye flights") == ["红眼航班", "航班"]
    assert find_entities("") == []


def test_types_and_size():
    assert entity_type("汉庭") == "hotel_brand"
    assert entity_type("aisle") == "seat"
    n_forms = sum(len(v[1]) + 1 for v in ENTITIES.values())
    assert 300 <= n_forms <= 2000
