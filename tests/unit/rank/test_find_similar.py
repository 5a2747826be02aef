"""A pasted function returns itself, at function granularity, in every preset and across languages: the real engine
on a small project where the function's class is a hub (its header chunk shares the function's words and carries
the largest centrality boost), a neighbour repeats some of its words, and a README and an SVG name them all."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine

CART_PY = '''"""Shopping carts."""
from decimal import Decimal


class Cart:
    """A cart of line items, with a discount code and the tax region that prices it."""

    currency = "EUR"
    discount_code: str | None = None
    region: str = "eu"

    def __init__(self, owner, region="eu"):
        self.owner = owner
        self.region = region
        self.items = []

    def add_item(self, sku, quantity=1):
        """Add a line, merging it into an existing line of the same SKU."""
        for line in self.items:
            if line.sku == sku:
                line.quantity += quantity
                return line
        line = LineItem(sku, quantity)
        self.items.append(line)
        return line

    def total(self, rates):
        """The total price with tax and the discount applied."""
        net = sum(line.subtotal() for line in self.items)
        if self.discount_code:
            net = net * (Decimal(1) - rates.discount_for(self.discount_code))
        tax = rates.tax_for(self.region) * net
        return (net + tax).quantize(Decimal("0.01"))

    def describe(self):
        return f"{self.owner}: {len(self.items)} items, discount {self.discount_code} in {self.region}"


class LineItem:
    def __init__(self, sku, quantity):
        self.sku = sku
        self.quantity = quantity

    def subtotal(self):
        return self.quantity * PRICES[self.sku]


PRICES = {"apple": Decimal("0.5")}
'''

ORDERS_PY = '''from shop.cart import Cart


def new_cart(owner):
    return Cart(owner)


def eu_cart(owner):
    return Cart(owner, "eu")


def us_cart(owner):
    return Cart(owner, "us")


def checkout(cart, rates):
    """Charge the cart's total; the region decides the tax and a discount code lowers the net."""
    amount = cart.total(rates)
    return Cart(cart.owner), amount
'''

CART_JS = """// Cart helpers for the web shop.
const TAX = { eu: 0.2, us: 0.07 };

function addItem(cart, sku, quantity) {
  const line = cart.items.find((l) => l.sku === sku);
  if (line) {
    line.quantity += quantity;
    return line;
  }
  const fresh = { sku, quantity };
  cart.items.push(fresh);
  return fresh;
}

function cartTotal(cart, prices) {
  const net = cart.items.reduce((sum, l) => sum + l.quantity * prices[l.sku], 0);
  const tax = TAX[cart.region] * net;
  return Math.round((net + tax) * 100) / 100;
}

module.exports = { addItem, cartTotal };
"""

CART_GO = """package shop

// Cart holds the line items of one customer.
type Cart struct {
	Owner  string
	Region string
	Items  []LineItem
}

// LineItem is one SKU and its quantity.
type LineItem struct {
	SKU      string
	Quantity int
}

// AddItem merges a line into the cart.
func (c *Cart) AddItem(sku string, quantity int) *LineItem {
	for i := range c.Items {
		if c.Items[i].SKU == sku {
			c.Items[i].Quantity += quantity
			return &c.Items[i]
		}
	}
	c.Items = append(c.Items, LineItem{SKU: sku, Quantity: quantity})
	return &c.Items[len(c.Items)-1]
}

// Total prices the cart with its region's tax.
func (c *Cart) Total(prices map[string]float64, taxes map[string]float64) float64 {
	net := 0.0
	for _, line := range c.Items {
		net += float64(line.Quantity) * prices[line.SKU]
	}
	return net + taxes[c.Region]*net
}
"""

CART_RS = """/// A cart of line items.
pub struct Cart {
    pub region: String,
    pub items: Vec<LineItem>,
}

pub struct LineItem {
    pub sku: String,
    pub quantity: u32,
}

impl Cart {
    /// Merge a line into the cart.
    pub fn add_item(&mut self, sku: &str, quantity: u32) {
        if let Some(line) = self.items.iter_mut().find(|l| l.sku == sku) {
            line.quantity += quantity;
            return;
        }
        self.items.push(LineItem { sku: sku.to_string(), quantity });
    }
}
"""

README = (
    "# Shop\n\nCarts hold line items (sku, quantity, subtotal); the total adds the region's tax to the net and "
    "applies a discount code with quantize. add_item merges lines; items append; rates give tax_for and "
    "discount_for.\n"
)
SVG = '<svg xmlns="http://www.w3.org/2000/svg"><text>cart items line sku quantity net tax region total</text></svg>\n'

FILES = {
    "shop/__init__.py": "",
    "shop/cart.py": CART_PY,
    "shop/orders.py": ORDERS_PY,
    "web/cart.js": CART_JS,
    "server/cart.go": CART_GO,
    "core/cart.rs": CART_RS,
    "README.md": README,
    "docs/cart.svg": SVG,
}

# Pasted functions with their names, parameters and locals renamed (as the dev set pastes them), and where each is:
# (path, first line, last line), 1-based, the span a result must cover exactly.
PASTED: list[tuple[str, str, tuple[str, int, int]]] = [
    (
        "python method",
        "find code similar to:\n"
        "def func(self, a1):\n"
        "    v1 = sum(v2.subtotal() for v2 in self.items)\n"
        "    if self.discount_code:\n"
        "        v1 = v1 * (Decimal(1) - a1.discount_for(self.discount_code))\n"
        "    v3 = a1.tax_for(self.region) * v1\n"
        '    return (v1 + v3).quantize(Decimal("0.01"))\n',
        ("shop/cart.py", 27, 33),
    ),
    (
        "python method, unrenamed",
        "def add_item(self, sku, quantity=1):\n"
        "    for line in self.items:\n"
        "        if line.sku == sku:\n"
        "            line.quantity += quantity\n"
        "            return line\n"
        "    line = LineItem(sku, quantity)\n"
        "    self.items.append(line)\n"
        "    return line\n",
        ("shop/cart.py", 17, 25),
    ),
    (
        "javascript function",
        "function f(a1, a2) {\n"
        "  const v1 = a1.items.reduce((s, l) => s + l.quantity * a2[l.sku], 0);\n"
        "  const v2 = TAX[a1.region] * v1;\n"
        "  return Math.round((v1 + v2) * 100) / 100;\n"
        "}\n",
        ("web/cart.js", 15, 19),
    ),
    (
        "go method",
        "func (c *Cart) F(a1 string, a2 int) *LineItem {\n"
        "\tfor i := range c.Items {\n"
        "\t\tif c.Items[i].SKU == a1 {\n"
        "\t\t\tc.Items[i].Quantity += a2\n"
        "\t\t\treturn &c.Items[i]\n"
        "\t\t}\n"
        "\t}\n"
        "\tc.Items = append(c.Items, LineItem{SKU: a1, Quantity: a2})\n"
        "\treturn &c.Items[len(c.Items)-1]\n"
        "}\n",
        ("server/cart.go", 16, 26),
    ),
    (
        "rust method",
        "pub fn f(&mut self, a1: &str, a2: u32) {\n"
        "    if let Some(v) = self.items.iter_mut().find(|l| l.sku == a1) {\n"
        "        v.quantity += a2;\n"
        "        return;\n"
        "    }\n"
        "    self.items.push(LineItem { sku: a1.to_string(), quantity: a2 });\n"
        "}\n",
        ("core/cart.rs", 13, 21),  # the impl's closing brace is glued to its last method's chunk
    ),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("similar")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    engine = Engine(root, Settings(index_dir=str(tmp_path_factory.mktemp("similar-index"))), persist=False)
    engine.index()
    yield engine
    engine.close()


def test_the_class_is_the_hub(engine: Engine) -> None:
    """The premise: the class header outweighs its methods in the centrality boost."""
    assert engine.centrality("shop/cart.py", "Cart") > 2 * engine.centrality("shop/cart.py", "Cart.total")


@pytest.mark.parametrize("preset", ["standard", "thorough"])
@pytest.mark.parametrize(("case", "query", "where"), PASTED, ids=[p[0] for p in PASTED])
def test_a_pasted_function_returns_itself_whole(
    engine: Engine, preset: str, case: str, query: str, where: tuple[str, int, int]
) -> None:
    response = engine.search(query, preset=preset, limit=10)
    assert response.classification.intent.value == "find_similar"
    first = response.results[0]
    assert (first.path, first.span.start_line + 1, first.span.end_line + 1) == where, case
    assert first.kind in ("function", "method")


def test_a_pasted_class_returns_the_class(engine: Engine) -> None:
    response = engine.search(
        'class Basket:\n    """Line items with a discount."""\n\n    currency = "EUR"\n'
        '    discount_code: str | None = None\n    region: str = "eu"\n',
        limit=5,
    )
    first = response.results[0]
    assert (first.path, first.span.start_line + 1, first.kind) == ("shop/cart.py", 5, "class")


def test_loose_lines_still_find_the_function_that_holds_them(engine: Engine) -> None:
    response = engine.search("v3 = a1.tax_for(self.region) * v1\nreturn (v1 + v3).quantize(Decimal('0.01'))", limit=5)
    assert response.classification.intent.value == "find_similar"
    assert (response.results[0].path, response.results[0].symbol) == ("shop/cart.py", "Cart.total")
