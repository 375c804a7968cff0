import Rederive

// README example begin
/// What the app stores in `recipes.json`.
struct Recipe: Codable, Sendable {
    let title: String
    let ingredients: [String]
    let minutes: Int?
}

struct MissingTime: Error, CustomStringConvertible {
    var description: String { "the recipe has no cooking time" }
}

/// Owns the column `ingredient_count`, and is named after it. Bump `version` whenever the logic changes.
let ingredientCount = Processor<Recipe>.integer("ingredient_count", version: 1) { recipe in
    recipe.ingredients.count
}

/// Owns `is_quick` (1 or 0). Version 2 moved the threshold from 30 to 20 minutes.
let quickness = Processor<Recipe>.boolean("is_quick", name: "quickness", version: 2) { recipe in
    guard let minutes = recipe.minutes else { throw MissingTime() }
    return minutes <= 20
}

/// Owns two columns: the general form returns one value per column, in their declared order.
let titleFacts = Processor<Recipe>(
    name: "title_facts",
    version: 1,
    columns: [.text("title"), .integer("title_words")]
) { recipe in
    [.text(recipe.title), .integer(recipe.title.split(separator: " ").count)]
}

/// Derives from two other processors' columns, typed, never from the payload: it runs after them, and
/// again only when their values change. Bumping its version re-derives it without inflating a payload.
let effort = Processor<Recipe>.text("effort", version: 1, from: ingredientCount.integer, quickness.boolean) { count, quick in
    guard let count, let quick else { return nil }
    return quick && count <= 5 ? "easy" : "involved"
}

/// Binds the processors to the app's table `recipes (id, slug, json)`.
let recipes = Pipeline(
    name: "recipes",
    table: "recipes",
    keyColumn: "slug",
    payloadColumn: "json",
    decoding: Recipe.self,
    // Keeps each decoded recipe beside its values: a bump of a payload processor reads no payload.
    projection: .codable(version: 1),
    processors: [ingredientCount, quickness, titleFacts, effort]
)
// README example end
