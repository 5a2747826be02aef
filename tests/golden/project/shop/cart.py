"""The shopping cart: line items, totals and tax."""

from shop.config import ShopConfig


class LineItem:
    def __init__(self, sku: str, price_cents: int, quantity: int = 1) -> None:
        self.sku = sku
        self.price_cents = price_cents
        self.quantity = quantity

    def subtotal(self) -> int:
        return self.price_cents * self.quantity


class Cart:
    """Items a customer intends to buy, priced with the shop's tax rate."""

    def __init__(self, config: ShopConfig) -> None:
        self.config = config
        self.items: list[LineItem] = []

    def add(self, item: LineItem) -> None:
        self.items.append(item)

    def total(self) -> int:
        net = sum(item.subtotal() for item in self.items)
        return net + self.tax(net)

    def tax(self, net: int) -> int:
        return round(net * self.config.tax_rate)
