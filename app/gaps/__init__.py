"""Knowledge gaps: what shoppers asked and got no good answer to, grouped by meaning."""
