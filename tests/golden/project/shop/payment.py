"""Charging customers through the payment gateway, with retries on connection errors."""

import time

from shop.cart import Cart

MAX_ATTEMPTS = 3


class PaymentDeclined(Exception):
    pass


class Gateway:
    def charge(self, amount_cents: int, token: str) -> str:
        raise NotImplementedError


def checkout(cart: Cart, gateway: Gateway, token: str) -> str:
    """Charge the cart's total; retry when the gateway refuses the connection (ECONNREFUSED)."""
    amount = cart.total()
    for attempt in range(MAX_ATTEMPTS):
        try:
            return gateway.charge(amount, token)
        except ConnectionRefusedError:
            time.sleep(2**attempt)
    raise PaymentDeclined("gateway unreachable: ECONNREFUSED after retries")
