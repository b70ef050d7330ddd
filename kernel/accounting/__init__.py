"""Money and tokens: budgets, prices, and the day's spend."""
