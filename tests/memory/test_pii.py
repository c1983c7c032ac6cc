"""PII redaction (memory/pii.py): every pattern, both languages, and numbers that must stay."""

import pytest

from memory.pii import contains_pii, luhn_valid, redact, valid_id_card


def _id_with_checksum(first17: str) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    total = sum(int(d) * w for d, w in zip(first17, weights, strict=True))
    return first17 + "10X98765432"[total % 11]


@pytest.mark.parametrize(
    "text,kind",
    [
        ("我的手机号是13712345678，有事打我", "PHONE"),
        ("电话 137-1234-5678", "PHONE"),
        ("电话 137 1234 5678", "PHONE"),
        ("call +86 137 1234 5678 anytime", "PHONE"),
        ("座机 010-62345678", "PHONE"),
        ("深圳办公室 0755-1234567", "PHONE"),
        ("My cell is +1 415 555 0100.", "PHONE"),
        ("London office: +44 20 7946 0958", "PHONE"),
        ("reach me at (415) 555-0100", "PHONE"),
        ("邮箱 li.na+work@example.cn 收", "EMAIL"),
        ("send it to j.doe@mail.example.org please", "EMAIL"),
        ("信用卡 4111 1111 1111 1111 别存", "BANK_CARD"),
        ("card 4111-1111-1111-1111", "BANK_CARD"),
        ("卡号 6222021234567890128", "BANK_CARD"),
        ("passport number E98765432", "PASSPORT"),
        ("护照号 G12345678", "PASSPORT"),
        ("my frequent flyer number is MU 123456789", "ACCOUNT"),
    ],
)
def test_redacts(text, kind):
    res = redact(text)
    assert f"[{kind}]" in res.text, res
    assert res.found.get(kind) == 1
    assert contains_pii(text)


def test_id_card_checksum_and_birth_date():
    good = _id_with_checksum("44030619900101123")
    assert valid_id_card(good)
    res = redact(f"身份证 {good} 请保密")
    assert res.text == "身份证 [ID_CARD] 请保密" and res.found == {"ID_CARD": 1}
    x_id = next(
        _id_with_checksum(f"11010519850610{n:03d}")
        for n in range(200)
        if _id_with_checksum(f"11010519850610{n:03d}").endswith("X")
    )
    assert redact(f"ID {x_id}").text == "ID [ID_CARD]"
    # wrong checksum, impossible birth date: not an ID card (unless labelled as one)
    bad = good[:-1] + ("0" if good[-1] != "0" else "1")
    assert not valid_id_card(bad)
    assert not valid_id_card(_id_with_checksum("11010520991301123"))
    assert redact(f"order {bad}").found.get("ID_CARD") is None
    assert redact(f"身份证号 {bad}").text == "身份证号 [ID_CARD]"


def test_luhn():
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")


def test_multiple_in_one_text():
    res = redact("手机 13912345678，邮箱 a@b.co，备用 13987654321")
    assert res.found == {"PHONE": 2, "EMAIL": 1}
    assert "139" not in res.text


@pytest.mark.parametrize(
    "text",
    [
        "预算 8万，最多 80000 元",
        "2026年3月开会，时间 14:30",
        "日期 2026-01-06，订单号 1234567812345678",
        "大概 120 人，每晚一千五以内",
        "Version 3.12.1, port 8080, 1,500 users",
        "Q4 revenue was 12345678 dollars",
        "会议号 123 456 789",
        "flight CA1234 departs 09:40",
        "邮编 100080",
    ],
)
def test_non_pii_numbers_stay(text):
    res = redact(text)
    assert res.text == text and res.found == {}
    assert not contains_pii(text)


def test_empty():
    assert redact("").text == "" and redact("").found == {}


@pytest.mark.parametrize(
    "text",
    [
        "我的邮箱是zhang.wei@example.com，谢谢",
        "邮箱是x.y@corp.cn",
        "电话是+44 20 7946 0958",
    ],
)
def test_pii_glued_to_chinese_is_redacted(text):
    redacted = redact(text).text
    assert "@" not in redacted and "7946" not in redacted
    assert "[EMAIL]" in redacted or "[PHONE]" in redacted


@pytest.mark.parametrize(
    ("text", "kind", "raw"),
    [
        # card-shaped with a card / bank word before it: a card even when Luhn fails
        ("工资卡是招行那张 6225881234567890，别打错", "BANK_CARD", "6225881234567890"),
        ("put it on my Visa 4000 1234 5678 9011 please", "BANK_CARD", "4000 1234 5678 9011"),
        ("my SSN is 521-44-8812 if you need it", "SSN", "521-44-8812"),
        ("SSN: 521448812", "SSN", "521448812"),
        ("我 NRIC 是 S8234567D, 住 Punggol", "ID_CARD", "S8234567D"),
        ("FIN G1234567X expires next year", "ID_CARD", "G1234567X"),
        ("HK ID A123456(7) for the form", "ID_CARD", "A123456(7)"),
        ("证件号码 K12345678 别外传", "ID_CARD", "K12345678"),
    ],
)
def test_identifiers_recognised_by_shape_or_context(text, kind, raw):
    res = redact(text)
    assert raw not in res.text and res.found.get(kind) == 1, res.text


@pytest.mark.parametrize(
    ("text", "raw", "kept"),
    [
        ("快递放浦东新区锦绣路1888弄12号1502室门口", "1888弄12号1502室", "浦东新区锦绣路"),
        ("我家在3栋2单元1201室，电梯坏了", "1201", "我家在"),
        ("I'm at 2217 Fillmore St Apt 4C, San Francisco", "2217 Fillmore", "San Francisco"),
        ("deliver to Blk 123 Tampines St 11 #04-56 please", "#04-56", "Tampines"),
        # a road's section ("大道北段") and a door number typed without 室
        ("地址：天府大道北段966号3栋1单元702，谢谢", "966号", "天府大道北段"),
        ("寄到长宁区仙霞路88号5号楼1203", "1203", "仙霞路"),
        # a price after the house number is no door
        ("住中山路100号那家 300元一晚", "100号", "300元一晚"),
    ],
)
def test_street_addresses_keep_the_district_but_not_the_door(text, raw, kept):
    res = redact(text)
    assert raw not in res.text and kept in res.text and res.found.get("ADDRESS"), res.text


@pytest.mark.parametrize(
    "text",
    [
        "在南京西路2号线站等我",
        "12号线转2号线",
        "住在华山路上",
        "3 号会议室",
    ],
)
def test_metro_lines_and_roads_alone_are_not_addresses(text):
    assert redact(text).text == text


def test_what_a_rewrite_left_of_an_identifier_is_redacted_against_its_source():
    from memory.pii import identifier_groups, redact_against

    source = "退款打到建行卡 6227 0012 3456 7890 就行"
    mangled = (
        "用户退款打到建行卡 6227 0012 7890"  # a group lost in a rewrite: no longer card-shaped
    )
    assert "0012" not in redact_against(mangled, identifier_groups(source)).text
    # numbers that were never part of an identifier stay
    secret = identifier_groups("电话 139 2026 8877，2026年换了车")
    assert redact_against("用户2026年换了车", secret).text == ("用户2026年换了车")


def test_laughter_is_not_read_inside_a_number():
    from memory.extraction.salience import strip_emoji_and_laughter

    assert strip_emoji_and_laughter("卡号 6214 8301 2233 4455") == "卡号 6214 8301 2233 4455"
    assert strip_emoji_and_laughter("2333 笑死").strip() == ""


def test_a_card_number_with_laughter_digits_never_reaches_a_memory(cast):
    """End to end through the extractor and the write path: "2233" inside the card number is
    no laughter, and nothing of the card is stored."""
    import datetime as dt

    from audit.services import SYSTEM
    from memory import services
    from memory.models import Memory

    appended = services.events_append(
        tenant=cast.tenant_a,
        external_id="card-owner",
        session_id="s1",
        events=[
            services.EventInput(
                role="user",
                content="报销打款账户是招商银行 6214 8301 2233 4455，户名写我英文名",
                occurred_at=dt.datetime(2026, 3, 1, tzinfo=dt.UTC),
            )
        ],
        extract="sync",
        actor=SYSTEM,
    )
    services.events_extract(event_ids=appended.new_event_ids, actor=SYSTEM)
    texts = " ".join(f"{m.content} {m.source_quote} {m.search_text}" for m in Memory.objects.all())
    for group in ("6214", "8301", "2233", "4455"):
        assert group not in texts


@pytest.mark.parametrize(
    "text,kind,raw",
    [
        ("電話 9123 4567，下午打", "PHONE", "9123 4567"),
        ("my cell: 0412 555 019", "PHONE", "0412 555 019"),
        ("卡号后面的 CVV 927 也发你", "SECRET", "927"),
        ("验证码 5521 别告诉别人", "SECRET", "5521"),
        ("the wifi password is tulip77", "SECRET", "tulip77"),
        ("页脚放联系方式：微信 ly_shoots_2020", "HANDLE", "ly_shoots_2020"),
        ("有事加我QQ：38291047", "HANDLE", "38291047"),
        ("DM me on ig @mei.lin_88", "HANDLE", "mei.lin_88"),
        ("挂号要填身份证，我的是110105199003074512", "ID_CARD", "110105199003074512"),
        ("VPN 连不上，账号 chenyu_ops 密码 Qw!9zLm#42", "HANDLE", "chenyu_ops"),
        ("VPN 连不上，账号 chenyu_ops 密码 Qw!9zLm#42", "SECRET", "9zLm#42"),
        ("my username is li.wei_88 on the portal", "HANDLE", "li.wei_88"),
    ],
)
def test_a_label_says_what_a_number_is(text, kind, raw):
    result = redact(text)
    assert raw not in result.text and result.found.get(kind) == 1, result


@pytest.mark.parametrize(
    "text", ["I phone my mom 2 times a day", "my password is long", "密码是多少", "pin 3 photos"]
)
def test_labels_without_a_value_take_nothing(text):
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "订单号110105199003074512，帮我查下物流",  # ID-shaped, no ID word: an order number
        "微信聊天记录怎么迁移到新手机",
        "I walked 43215 steps this week",
        "I use wxPython_3 for the GUI",
    ],
)
def test_identifier_shapes_without_their_label_stay(text):
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text,gone",
    [
        ("wire it to account 55120398, routing number 121000358", "121000358"),
        ("ABA 026009593 for the checking account", "026009593"),
        ("my IBAN is FR14 2004 1010 0505 0001 3M02 606", "2004 1010"),
        ("refund to NL91ABNA0417164300 please", "NL91ABNA0417164300"),
        ("送到望京西路33号望京SOHO 2座1702，前台代收", "1702"),
        ("快递放到科技园南路8号创业大厦5号楼2单元603", "603"),
    ],
)
def test_bank_routes_and_doors_after_a_building_name_are_redacted(text, gone):
    assert gone not in redact(text).text, redact(text).text


@pytest.mark.parametrize(
    "text",
    ["模型 GB12ABCD12345678901 是随便编的", "我们在5号楼2单元开会", "那栋楼是3座1985年建的"],
)
def test_shapes_that_are_no_account_or_door_stay(text):
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text,secret",
    [
        ("the clinic portal login is ana.r@example.org / Marigold!1987, save it", "Marigold!1987"),
        ("my streaming login is jane_doe / tulip77 lol", "tulip77"),
        ("宽带账号 zhangwei2020 / abc12345 你帮我记一下", "abc12345"),
        ("wifi login: guest / welcome2home", "welcome2home"),
    ],
)
def test_the_password_of_a_login_written_name_slash_password_is_redacted(text, secret):
    out = redact(text).text
    assert secret not in out and "[SECRET]" in out


@pytest.mark.parametrize(
    "text",
    [
        "I log in on weekdays / weekends too",
        "the login page / signup page are broken",
        "our sign-in flow uses SSO / SAML2 now",
        "登录用 微信 / QQ 都行",
    ],
)
def test_a_slash_after_a_login_word_is_no_password_by_itself(text):
    assert redact(text).text == text


@pytest.mark.parametrize(
    "text,raw",
    [
        ("send it to 12 Birch Rd, Salem OR 97301 please", "97301"),
        ("im at 2208 willow creek ln apt 4c, come after 3", "2208 willow"),
        ("my tax site pw is Heron!2031 if u need it", "Heron!2031"),
        ("VPN 账号 liqing 密 码 Zxcv@2031k 连不上", "Zxcv@2031k"),
        ("报销单上要填工号 K305912", "K305912"),
        ("my employee ID is R7730215 for the portal", "R7730215"),
    ],
)
def test_identifiers_typed_as_in_chat_are_redacted(text, raw):
    assert raw not in redact(text).text


@pytest.mark.parametrize(
    "text",
    ["walk 500 steps down main street", "new place is 2 blocks off elm st", "ran 5 km on oak st"],
)
def test_a_count_before_a_street_is_no_door_number(text):
    assert redact(text).text == text


def test_an_amount_before_a_word_some_streets_end_with_is_no_address():
    text = "the landlord agreed, so I'll pay $2,150 for the new place, 300 bucks more a way"
    assert redact(text).text == text
