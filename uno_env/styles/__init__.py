"""Play styles: the compiled scripted styles, their registry, and the search style."""
