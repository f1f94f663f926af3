"""placeholder"""
def explain(doc, problem):
    return []
