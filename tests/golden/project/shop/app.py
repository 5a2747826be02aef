"""Wires the shop together: configuration, carts and checkout."""

from shop.cart import Cart, LineItem
from shop.config import load_config
from shop.payment import Gateway, checkout


def main(config_path: str, token: str) -> str:
    config = load_config(config_path)
    cart = Cart(config)
    cart.add(LineItem("book", 1500, 2))
    return checkout(cart, Gateway(), token)
