#!/usr/bin/env python3
"""MCP server for Acme Outfitters' support assistant (stdio).

Tools:     echo(text), store_hours(city), shipping_quote(weight_kg, country="US")
Prompt:    apology(customer_name)
Resource:  store://returns-policy

Run:  promptexec invoke-tool --server "python3 server.py" echo --arg text=hi

It is written on the official `mcp` package (pip install mcp==2.3.0). A python3
without it runs the same server on tiny_mcp.py beside this file, as does any
python3 when MCP_EXAMPLE_TINY=1 is set. Answers depend on the arguments alone:
no network, no clock.
"""

import math
import os
import sys
from typing import Any


def _tiny_server():
    # `python3 -I` leaves the script's own directory off sys.path.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from tiny_mcp import MCPServer

    return MCPServer


if os.environ.get("MCP_EXAMPLE_TINY") == "1":
    MCPServer = _tiny_server()
else:
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        MCPServer = _tiny_server()

server = MCPServer("acme-support", version="1.0.0")

STORES = {
    "portland": {"city": "Portland", "opens": "09:00", "closes": "18:00", "days": "Mon-Sat"},
    "denver": {"city": "Denver", "opens": "10:00", "closes": "19:00", "days": "Mon-Sun"},
    "boston": {"city": "Boston", "opens": "08:30", "closes": "17:30", "days": "Mon-Fri"},
}

# Per country: currency, base price and price per started kilogram (in cents), days.
RATES = {
    "US": ("USD", 500, 150, 3),
    "CA": ("CAD", 900, 225, 6),
    "GB": ("GBP", 1400, 300, 8),
    "DE": ("EUR", 1300, 280, 7),
}


# Every tool only reads: `check` calls read-only tools with generated arguments.
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


@server.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Answer with the text it was given."""
    return text


@server.tool(annotations=READ_ONLY)
def store_hours(city: str) -> dict[str, Any]:
    """Opening hours of the Acme Outfitters store in a city."""
    store = STORES.get(city.strip().lower())
    if store is None:
        raise ValueError(f"no store in {city}; stores: {', '.join(s['city'] for s in STORES.values())}")
    return dict(store)


@server.tool(annotations=READ_ONLY)
def shipping_quote(weight_kg: float, country: str = "US") -> dict[str, Any]:
    """Price and delivery time of a parcel, by weight and two-letter country code."""
    rate = RATES.get(country.upper())
    if rate is None:
        raise ValueError(f"no shipping to {country}; countries: {', '.join(RATES)}")
    if not weight_kg > 0:
        raise ValueError("weight_kg must be above 0")
    currency, base, per_kg, days = rate
    cents = base + per_kg * math.ceil(weight_kg)
    return {"country": country.upper(), "weight_kg": weight_kg, "price": cents / 100, "currency": currency, "days": days}


@server.prompt()
def apology(customer_name: str) -> str:
    """An apology to a customer whose order went wrong."""
    return (
        f"Write a short apology to {customer_name} for the trouble with their order. "
        "Say what happens next, and offer the returns policy if it helps."
    )


@server.resource("store://returns-policy")
def returns_policy() -> str:
    """How Acme Outfitters takes goods back."""
    return (
        "Unworn items can be returned within 30 days of delivery for a full refund.\n"
        "Refunds go back to the original payment method within 5 business days.\n"
        "Return shipping is free in the US; elsewhere it is deducted from the refund.\n"
    )


if __name__ == "__main__":
    server.run()
