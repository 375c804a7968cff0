/// The README's pipeline (ReadmeExample.swift) for the test targets that run it. The excerpts they
/// compile call it `recipes`, so each declares that name for it.
package let readmeRecipes = recipes
