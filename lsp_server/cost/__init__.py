"""What requests cost: prices and cache lifetimes from Pi's sources, the turn ledger, the next request priced."""
