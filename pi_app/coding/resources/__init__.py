"""Resource discovery: context files, prompt files, skills, prompt templates, themes (spec 40 §2.12)."""
