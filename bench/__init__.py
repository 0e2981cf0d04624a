"""The benchmark harness behind `make bench` (DESIGN.md §13, issue 7). Never imported by the product."""
