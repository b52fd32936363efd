"""The rules of Basra as a pure, event-sourced core: no I/O, no clock, no unseeded randomness."""
