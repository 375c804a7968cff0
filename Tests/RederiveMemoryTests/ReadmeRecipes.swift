import RederiveTestSupport

/// The README's pipeline, by the name the README's examples give it.
let recipes = readmeRecipes
