"""Playing rounds: dealing, seed streams, the round kernels, the Round API and Monte Carlo."""
