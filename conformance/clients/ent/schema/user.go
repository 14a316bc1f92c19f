package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// User is an application's user, with posts.
type User struct{ ent.Schema }

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").MaxLen(64),
		field.String("email").Unique(),
		field.Int("age").Optional(),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{edge.To("posts", Post.Type)}
}

// Indexes of the User.
func (User) Indexes() []ent.Index {
	return []ent.Index{index.Fields("name")}
}
