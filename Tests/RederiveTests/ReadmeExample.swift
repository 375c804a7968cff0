import Rederive

// README example begin
/// What the app stores in `recipes.json`.
struct Recipe: Decodable, Sendable {
    let title: String
    let ingredients: [String]
    let minutes: Int?
}

struct MissingTime: Error, CustomStringConvertible {
    var description: String { "the recipe has no cooking time" }
}

/// Owns `ingredient_count`. Bump `version` whenever the logic changes.
let ingredientCount = Processor<Recipe>(
    name: "ingredient_count",
    version: 1,
    columns: [.integer("ingredient_count")]
) { recipe in
    [.integer(recipe.ingredients.count)]
}

/// Owns `is_quick`. Version 2 moved the threshold from 30 to 20 minutes.
let quickness = Processor<Recipe>(
    name: "quickness",
    version: 2,
    columns: [.integer("is_quick")]
) { recipe in
    guard let minutes = recipe.minutes else { throw MissingTime() }
    return [.integer(minutes <= 20 ? 1 : 0)]
}

/// Binds the processors to the app's table `recipes (id, slug, json)`.
let recipes = Pipeline(
    name: "recipes",
    table: "recipes",
    keyColumn: "slug",
    payloadColumn: "json",
    decoding: Recipe.self,
    processors: [ingredientCount, quickness]
)
// README example end
