"""Server-rendered SVG charts: geometry computed in Python, drawn by templates under templates/charts/."""
