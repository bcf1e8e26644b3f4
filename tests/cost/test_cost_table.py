"""The cost table at 80 columns: quantity x unit price = amount, amounts that add up."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from console.cost.lines import cents_that_add_up, line
from console.render.cost_table import cost_text


def test_thirds_of_a_dollar_add_up_to_the_dollar() -> None:
    assert cents_that_add_up([1 / 3, 1 / 3, 1 / 3]) == [0.34, 0.33, 0.33]


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=60),
            st.floats(min_value=0, max_value=1e7),
            st.floats(min_value=1e-6, max_value=100),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_rows_fit_80_columns_and_the_printed_amounts_add_up(
    items: list[tuple[str, float, float]],
) -> None:
    lines = [line(what.replace("\n", " "), q, "vCPU-h", p) for what, q, p in items]
    text = cost_text(lines)
    assert all(len(row) <= 80 for row in text)
    assert "…" not in "".join(text)  # a long label goes on over more lines, never cut
    text = [row for row in text if re.search(r"= +\$", row)]  # the rows with figures
    assert len(text) == len(lines) + 1
    money = [re.findall(r"\$([\d,]+\.\d+)$", row) for row in text]
    amounts = [float(m[0].replace(",", "")) for m in money[:-1]]
    shown_total = float(money[-1][0].replace(",", ""))
    places = 2 if sum(x.usd for x in lines) >= 1 else 4
    assert round(sum(amounts), places) == shown_total
    assert abs(shown_total - sum(x.usd for x in lines)) <= 0.5 * 10**-places + 1e-9
    for row, x in zip(text, lines, strict=False):
        assert f" x ${x.unit_price_usd:.4g}" in row  # quantity x unit price = amount
