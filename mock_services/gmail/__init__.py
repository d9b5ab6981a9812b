"""The Gmail replica: Gmail v1 on the generic REST engine, a small mail system per environment."""
