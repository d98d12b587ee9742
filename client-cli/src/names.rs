//! Names of cities, locations and card faces as people type and read them: full names,
//! short forms for the table, and unambiguous abbreviations when parsing.

use theboss_engine::{City, Face, Location, Sanction};

/// A short form for narrow columns.
pub fn city_short(city: City) -> &'static str {
    match city {
        City::NewYork => "NY",
        City::Boston => "BOS",
        City::Detroit => "DET",
        City::KansasCity => "KC",
        City::Cincinnati => "CIN",
        City::Memphis => "MEM",
        City::Philadelphia => "PHI",
    }
}

pub fn location_name(location: Location) -> String {
    match location {
        Location::Chicago => "Chicago".to_string(),
        Location::City(city) => city.name().to_string(),
    }
}

pub fn face_short(face: Face) -> String {
    match face {
        Face::Money(m) => m.to_string(),
        Face::Sanction(Sanction::Revolver) => "Rev".into(),
        Face::Sanction(Sanction::Prison) => "Pri".into(),
        Face::Sanction(Sanction::Hospital) => "Hos".into(),
        Face::Sanction(Sanction::Banished) => "Ban".into(),
    }
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Every name a location answers to: its full name without spaces and its short form.
fn location_names(location: Location) -> Vec<String> {
    match location {
        Location::Chicago => vec!["chicago".into()],
        Location::City(city) => vec![squash(city.name()), squash(city_short(city))],
    }
}

/// Parses a location among `candidates`: a short form, or any prefix of exactly one name.
pub fn parse_location(word: &str, candidates: &[Location]) -> Result<Location, String> {
    let word = squash(word);
    if word.is_empty() {
        return Err("name a location".into());
    }
    if let Some(exact) = candidates
        .iter()
        .find(|l| location_names(**l).contains(&word))
    {
        return Ok(*exact);
    }
    let matches: Vec<Location> = candidates
        .iter()
        .copied()
        .filter(|l| location_names(*l).iter().any(|n| n.starts_with(&word)))
        .collect();
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!("{word:?} is no location in this game")),
        many => Err(format!(
            "{word:?} could be {}",
            many.iter()
                .map(|l| location_name(*l))
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

/// Parses a card face: a number of M$, or a sanction's name or prefix.
pub fn parse_face(word: &str) -> Result<Face, String> {
    let word = squash(word).trim_end_matches('m').to_string();
    if let Ok(value) = word.parse::<u8>() {
        return Ok(Face::Money(value));
    }
    let sanctions = [
        ("revolver", Sanction::Revolver),
        ("prison", Sanction::Prison),
        ("hospital", Sanction::Hospital),
        ("banished", Sanction::Banished),
    ];
    let matches: Vec<Sanction> = sanctions
        .iter()
        .filter(|(name, _)| !word.is_empty() && name.starts_with(&word))
        .map(|(_, s)| *s)
        .collect();
    match matches.as_slice() {
        [one] => Ok(Face::Sanction(*one)),
        _ => Err(format!(
            "{word:?} is no card face: give the M$ (0-4) or a sanction (revolver, prison, hospital, banished)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Location> {
        let mut v: Vec<Location> = City::ALL.into_iter().map(Location::City).collect();
        v.push(Location::Chicago);
        v
    }

    #[test]
    fn abbreviations_resolve_when_unambiguous() {
        let all = all();
        assert_eq!(
            parse_location("bos", &all),
            Ok(Location::City(City::Boston))
        );
        assert_eq!(
            parse_location("NY", &all),
            Ok(Location::City(City::NewYork))
        );
        assert_eq!(
            parse_location("new york", &all),
            Ok(Location::City(City::NewYork))
        );
        assert_eq!(
            parse_location("kc", &all),
            Ok(Location::City(City::KansasCity))
        );
        assert_eq!(parse_location("chi", &all), Ok(Location::Chicago));
        assert_eq!(
            parse_location("cin", &all),
            Ok(Location::City(City::Cincinnati))
        );
        let err = parse_location("c", &all).unwrap_err();
        assert!(
            err.contains("Chicago") && err.contains("Cincinnati"),
            "{err}"
        );
        // Only the game's locations count: "m" is Memphis alone when Memphis is in play.
        assert_eq!(parse_location("m", &all), Ok(Location::City(City::Memphis)));
        assert!(parse_location("memphis", &all[..3]).is_err());
    }

    #[test]
    fn faces_parse_from_numbers_and_sanctions() {
        assert_eq!(parse_face("3"), Ok(Face::Money(3)));
        assert_eq!(parse_face("3m"), Ok(Face::Money(3)));
        assert_eq!(parse_face("rev"), Ok(Face::Sanction(Sanction::Revolver)));
        assert_eq!(parse_face("H"), Ok(Face::Sanction(Sanction::Hospital)));
        assert!(parse_face("x").is_err());
        assert!(parse_face("").is_err());
    }
}
