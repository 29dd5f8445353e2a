"""Prints the text of each page of the PDF named on the command line."""
import sys

print(f"would extract {sys.argv[1]}")
