from shop.cart import Cart, LineItem
from shop.config import ShopConfig


def test_total_includes_tax():
    cart = Cart(ShopConfig("sqlite://"))
    cart.add(LineItem("pen", 100, 3))
    assert cart.total() == 360
