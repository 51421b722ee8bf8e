"""Reading: the documents a file holds, with every position in the original file (`loader.load`,
`fastload` for the libyaml path), the `Document` view rules use, template holes and suppression comments."""
